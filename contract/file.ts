import { z } from "zod";
import { deletedResponseSchema, listResponseSchema, pagingQuerySchema } from "./list";

/**
 * Knowledge-base files (spec §7: POST /file/upload, GET /file/files, DELETE /file/file/{id}).
 * An agent lists the ids of the files it may search in its config's `knowledge_base_files`.
 */

/** What an upload may be: the extension decides, the browser's mime type must be a sane one for it. */
export const FILE_TYPES = {
  pdf: { mimeType: "application/pdf", accepted: ["application/pdf", "application/x-pdf"] },
  txt: { mimeType: "text/plain", accepted: ["text/plain"] },
  md: { mimeType: "text/markdown", accepted: ["text/markdown", "text/x-markdown", "text/plain"] },
  // Windows browsers label .csv as application/vnd.ms-excel.
  csv: { mimeType: "text/csv", accepted: ["text/csv", "application/csv", "text/plain", "application/vnd.ms-excel"] },
  json: { mimeType: "application/json", accepted: ["application/json", "text/json", "text/plain"] },
  docx: {
    mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    accepted: ["application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
  },
} as const satisfies Record<string, { mimeType: string; accepted: readonly string[] }>;
export type FileExtension = keyof typeof FILE_TYPES;
export const FILE_EXTENSIONS = Object.keys(FILE_TYPES) as FileExtension[];

/** For an `<input type="file" accept>` / antd Upload `accept`. */
export const FILE_ACCEPT = FILE_EXTENSIONS.map((extension) => `.${extension}`).join(",");

/** FILE_MAX_BYTES' default: 10 MB. */
export const DEFAULT_FILE_MAX_BYTES = 10 * 1024 * 1024;

/** Longest stored file name (after stripping paths and control characters). */
export const FILE_NAME_MAX_LENGTH = 200;

/** The multipart field the file travels in. */
export const FILE_FIELD = "file";

export const knowledgeBaseFileSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  mime_type: z.string(),
  size_bytes: z.number().int(),
  created_at: z.string(),
});
export type KnowledgeBaseFile = z.infer<typeof knowledgeBaseFileSchema>;

export const fileResponseSchema = z.object({ data: knowledgeBaseFileSchema });

export const fileListQuerySchema = pagingQuerySchema();

export const fileListResponseSchema = listResponseSchema(knowledgeBaseFileSchema);

export const fileIdParamsSchema = z.object({ id: z.uuid({ error: "the file id must be a UUID" }) });

export const fileDeleteResponseSchema = deletedResponseSchema;

/** "10 MB", "512 KB", "1.5 MB": how the size limit reads in the 413 message and the console. */
export function formatByteLimit(bytes: number): string {
  const units = [
    { size: 1024 * 1024 * 1024, label: "GB" },
    { size: 1024 * 1024, label: "MB" },
    { size: 1024, label: "KB" },
  ];
  for (const { size, label } of units) {
    if (bytes >= size) {
      const value = Math.round((bytes / size) * 10) / 10;
      return `${Number.isInteger(value) ? value : value.toFixed(1)} ${label}`;
    }
  }
  return `${bytes} bytes`;
}
