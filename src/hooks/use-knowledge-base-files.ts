import { useDelete, useInvalidate, useList, useNotification } from "@refinedev/core";
import { useCallback, useState } from "react";
import { apiPaths } from "../../contract/api";
import {
  DEFAULT_FILE_MAX_BYTES,
  FILE_EXTENSIONS,
  FILE_FIELD,
  formatByteLimit,
  type KnowledgeBaseFile,
} from "../../contract/file";
import { useAuthSession } from "../auth/session";
import { API_URL } from "../config/api-url";
import { strings } from "../config/strings";

const kb = strings.agents.knowledgeBase;

/** "PDF, TXT, MD, CSV, JSON or DOCX": the accepted types as a person reads them. */
export const FILE_TYPES_TEXT = (() => {
  const names = FILE_EXTENSIONS.map((extension) => extension.toUpperCase());
  return `${names.slice(0, -1).join(", ")} or ${names.at(-1) ?? ""}`;
})();
/** The server's default limit; a server configured otherwise answers 413 with its own sentence. */
export const FILE_SIZE_TEXT = formatByteLimit(DEFAULT_FILE_MAX_BYTES);

/** Why the browser refuses a file before sending it, or null when it may go. */
export function fileProblem(file: { name: string; size: number }): string | null {
  const extension = file.name.split(".").pop()?.toLowerCase() ?? "";
  if (!(FILE_EXTENSIONS as readonly string[]).includes(extension)) return kb.wrongType(FILE_TYPES_TEXT);
  if (file.size > DEFAULT_FILE_MAX_BYTES) return kb.tooLarge(FILE_SIZE_TEXT);
  return null;
}

/**
 * POST /file/upload as multipart (field "file"). The data provider speaks JSON only, so this one request
 * is made here, with the same bearer token and the server's `detail` as the error message.
 */
async function postFile(file: File, token: string | null): Promise<KnowledgeBaseFile> {
  const body = new FormData();
  body.append(FILE_FIELD, file, file.name);
  let response: Response;
  try {
    response = await fetch(`${API_URL}${apiPaths.fileUpload}`, {
      method: "POST",
      headers: { Accept: "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body,
    });
  } catch {
    throw new Error(strings.errors.network);
  }
  const parsed = (await response.json().catch(() => null)) as { data?: KnowledgeBaseFile; detail?: string } | null;
  if (!response.ok || !parsed?.data) throw new Error(parsed?.detail || kb.uploadFailed);
  return parsed.data;
}

/** The organisation's knowledge-base files: list (GET /file/files), upload and delete, each with a toast. */
export function useKnowledgeBaseFiles() {
  const session = useAuthSession();
  const { open } = useNotification();
  const invalidate = useInvalidate();
  const [isUploading, setIsUploading] = useState(false);
  const { result, query } = useList<KnowledgeBaseFile>({
    resource: "file",
    pagination: { currentPage: 1, pageSize: 100 },
    errorNotification: (error) => ({ type: "error", message: kb.listFailed, description: error?.message }),
  });
  const { mutateAsync: deleteOne } = useDelete<KnowledgeBaseFile>();

  /** Resolves to the stored file, or null after telling the person why it was not stored. */
  const upload = useCallback(
    async (file: File): Promise<KnowledgeBaseFile | null> => {
      const problem = fileProblem(file);
      if (problem) {
        open?.({ type: "error", message: kb.uploadFailed, description: problem });
        return null;
      }
      setIsUploading(true);
      try {
        const stored = await postFile(file, await session.getToken());
        open?.({ type: "success", message: kb.uploaded(stored.name) });
        await invalidate({ resource: "file", invalidates: ["list"] });
        return stored;
      } catch (error) {
        open?.({ type: "error", message: kb.uploadFailed, description: (error as Error).message });
        return null;
      } finally {
        setIsUploading(false);
      }
    },
    [invalidate, open, session],
  );

  const remove = useCallback(
    async (file: KnowledgeBaseFile): Promise<boolean> => {
      try {
        await deleteOne({
          resource: "file",
          id: file.id,
          successNotification: () => ({ type: "success", message: kb.deleted }),
          // 409 while an agent uses the file: the server's sentence says which.
          errorNotification: (error) => ({ type: "error", message: kb.deleteFailed, description: error?.message }),
        });
        return true;
      } catch {
        return false;
      }
    },
    [deleteOne],
  );

  return {
    files: query.isError ? [] : result.data,
    isLoading: query.isPending,
    isUploading,
    upload,
    remove,
  };
}
