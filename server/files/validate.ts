/**
 * What a knowledge-base upload may be (contract/file.ts FILE_TYPES): the extension decides the type, the
 * mime type the browser sent must be a sane one for it, and the bytes must look like it (PDF and DOCX
 * magic bytes, UTF-8 text for the text types, parseable JSON for .json).
 */
import { FILE_EXTENSIONS, FILE_NAME_MAX_LENGTH, FILE_TYPES, type FileExtension } from "../../contract/file";

export const ACCEPTED_TYPES_TEXT = `${FILE_EXTENSIONS.slice(0, -1)
  .map((extension) => extension.toUpperCase())
  .join(", ")} and ${FILE_EXTENSIONS[FILE_EXTENSIONS.length - 1]!.toUpperCase()}`;

/** Mime types that say nothing about the file (curl, some browsers for .md): the content check decides. */
const UNLABELLED = new Set(["", "application/octet-stream", "binary/octet-stream"]);

// C0 and C1 controls, zero-width and bidirectional-override characters, the byte-order mark.
// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * A file name fit to store and show: the last path segment only, no control or invisible characters,
 * whitespace collapsed, no leading dots, at most FILE_NAME_MAX_LENGTH characters (the extension kept).
 */
export function sanitizeFileName(raw: string): string {
  const lastSegment = raw.normalize("NFC").split(/[\\/]/).pop() ?? "";
  const name = lastSegment.replace(INVISIBLE, "").replace(/\s+/g, " ").trim().replace(/^\.+/, "").trim();
  const chars = Array.from(name);
  if (chars.length <= FILE_NAME_MAX_LENGTH) return name;
  const dot = name.lastIndexOf(".");
  const extension = dot > 0 && name.length - dot <= 10 ? name.slice(dot) : "";
  const keep = FILE_NAME_MAX_LENGTH - Array.from(extension).length;
  return `${chars.slice(0, keep).join("").trimEnd()}${extension}`;
}

export function extensionOf(name: string): string | null {
  const dot = name.lastIndexOf(".");
  return dot > 0 && dot < name.length - 1 ? name.slice(dot + 1).toLowerCase() : null;
}

const isAccepted = (extension: string | null): extension is FileExtension =>
  extension !== null && (FILE_EXTENSIONS as string[]).includes(extension);

export type FileCheck = { ok: true; name: string; extension: FileExtension; mimeType: string } | { ok: false; detail: string };

function looksLikePdf(bytes: Buffer): boolean {
  // "%PDF-" opens the file; readers accept it within the first 1024 bytes.
  return bytes.subarray(0, 1024).includes("%PDF-");
}

function looksLikeDocx(bytes: Buffer): boolean {
  // A ZIP (local file header "PK\3\4") holding the word/ part of a WordprocessingML package.
  return bytes.length > 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04 && bytes.includes("word/");
}

function utf8Text(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** Checks one upload; `rawName` and `mimeType` are what the client sent. */
export function checkUpload(rawName: string, mimeType: string, bytes: Buffer): FileCheck {
  const name = sanitizeFileName(rawName);
  const extension = extensionOf(name);
  if (!isAccepted(extension)) {
    const shown = name ? ` ("${name}" is not one of them)` : "";
    return { ok: false, detail: `Only ${ACCEPTED_TYPES_TEXT} files can be uploaded${shown}.` };
  }
  const type = FILE_TYPES[extension];
  const label = mimeType.split(";")[0]!.trim().toLowerCase();
  if (!UNLABELLED.has(label) && !(type.accepted as readonly string[]).includes(label)) {
    return {
      ok: false,
      detail: `"${name}" was sent as ${label}, which is not a .${extension} file. Only ${ACCEPTED_TYPES_TEXT} files can be uploaded.`,
    };
  }
  if (bytes.length === 0) return { ok: false, detail: `"${name}" is empty: choose a file with content.` };
  if (extension === "pdf" && !looksLikePdf(bytes)) return { ok: false, detail: `"${name}" is not a PDF file (its content does not start like one).` };
  if (extension === "docx" && !looksLikeDocx(bytes)) {
    return { ok: false, detail: `"${name}" is not a Word (.docx) document (its content is not a DOCX package).` };
  }
  if (extension === "txt" || extension === "md" || extension === "csv" || extension === "json") {
    const text = utf8Text(bytes);
    if (text === null) return { ok: false, detail: `"${name}" is not a UTF-8 text file.` };
    if (extension === "json") {
      try {
        JSON.parse(text.replace(/^\ufeff/, ""));
      } catch {
        return { ok: false, detail: `"${name}" is not valid JSON.` };
      }
    }
  }
  return { ok: true, name, extension, mimeType: type.mimeType };
}
