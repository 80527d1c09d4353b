import { CopyOutlined } from "@ant-design/icons";
import { Button, Input, Space } from "antd";
import { useCallback } from "react";
import { strings } from "../../config/strings";
import { useToasts } from "../../lib/toast";

const text = strings.agents.share;

/** Copies a link to the clipboard and says so, page-level (or says that the browser refused). */
export function useCopyLink() {
  const toasts = useToasts();
  return useCallback(
    async (link: string) => {
      try {
        await navigator.clipboard.writeText(link);
        toasts.notice(text.copied);
      } catch {
        toasts.error(text.copyFailed);
      }
    },
    [toasts],
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
