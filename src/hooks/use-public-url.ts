import { useEffect, useState } from "react";
import { loadedPublicConfig, loadPublicConfig } from "../config/public-config";

/**
 * The server's PUBLIC_URL (GET /api/config), for what an operator registers elsewhere (Google's redirect URI):
 * never this browser's origin, which may be another name of the server. Null until the server has said.
 */
export function usePublicUrl(): string | null {
  const [url, setUrl] = useState<string | null>(() => loadedPublicConfig()?.publicUrl ?? null);
  useEffect(() => {
    if (url) return;
    let live = true;
    loadPublicConfig().then(
      (config) => live && setUrl(config.publicUrl),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [url]);
  return url;
}
