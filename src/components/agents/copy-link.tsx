import { CopyOutlined } from "@ant-design/icons";
import { useNotification } from "@refinedev/core";
import { Button, Input, Space } from "antd";
import { useCallback } from "react";
import { strings } from "../../config/strings";

const text = strings.agents.share;

/** Copies a link to the clipboard and says so (or says that the browser refused). */
export function useCopyLink() {
  const { open } = useNotification();
  return useCallback(
    async (link: string) => {
      try {
        await navigator.clipboard.writeText(link);
        open?.({ type: "success", message: text.copied, description: link });
      } catch {
        open?.({ type: "error", message: text.copyFailed });
      }
    },
    [open],
  );
}

/** A read-only link (selected whole on focus) with a copy button. Give `id` when a label points at it. */
export function LinkWithCopy({ id, link, label, copyLabel }: { id?: string; link: string; label?: string; copyLabel: string }) {
  const copy = useCopyLink();
  return (
    <Space.Compact style={{ width: "100%" }}>
      <Input id={id} aria-label={label} value={link} readOnly onFocus={(event) => event.target.select()} />
      <Button icon={<CopyOutlined />} aria-label={copyLabel} onClick={() => void copy(link)} />
    </Space.Compact>
  );
}
