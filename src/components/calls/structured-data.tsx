import { Descriptions, Empty } from "antd";

/** A value as a line of text: scalars as they are, nested objects and lists as JSON. */
function show(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value, null, 2);
}

/** An object as a key/value list (structured data, cost breakdown); nested values fall back to JSON text. */
export function KeyValueList({ value, empty, format }: { value: Record<string, unknown> | null | undefined; empty: string; format?: (value: unknown) => string }) {
  const entries = Object.entries(value ?? {});
  if (!entries.length) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={empty} />;
  return (
    <Descriptions
      size="small"
      column={1}
      bordered
      items={entries.map(([key, item]) => ({
        key,
        label: key,
        children:
          typeof item === "object" && item !== null ? <pre className="call-detail__json">{show(item)}</pre> : (format ?? show)(item),
      }))}
    />
  );
}
