import { useEffect } from "react";
import { strings } from "../../config/strings";

/**
 * A standalone public page until its screen is built. Plain HTML on purpose: public pages load
 * neither antd's shell nor any sign-in code.
 */
export function PublicPlaceholder({ title }: { title: string }) {
  useEffect(() => {
    document.title = `${title} · ${strings.appName}`;
  }, [title]);

  return (
    <main className="public-page">
      <h1>{title}</h1>
      <p>{strings.publicPages.notBuilt}</p>
    </main>
  );
}
