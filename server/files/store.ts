/**
 * Where knowledge-base file bytes live when the voice provider does not keep them (sandbox mode):
 * DATA_DIR/files/<orgId>/<fileId>. With an in-memory database (tests) the bytes go to a temporary
 * folder that is removed when the app closes, so nothing outlives the database that lists them.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve, sep } from "node:path";
import type { AppConfig } from "../config";

export interface FileStore {
  /** The folder every key is relative to. */
  readonly root: string;
  /** Stores the bytes under a new key for (orgId, fileId); answers the key (the `storage_key` column). */
  write(orgId: string, fileId: string, bytes: Buffer): Promise<string>;
  read(key: string): Promise<Buffer>;
  /** Removes the bytes; already gone is fine. */
  remove(key: string): Promise<void>;
  /** Removes the temporary folder of an in-memory store (no-op for DATA_DIR). */
  dispose(): Promise<void>;
}

/** An organisation id as a folder name (ids are [A-Za-z0-9_-] in both auth modes; anything else is encoded). */
function folderFor(orgId: string): string {
  return /^[A-Za-z0-9_-]{1,200}$/.test(orgId) ? orgId : `x-${Buffer.from(orgId).toString("base64url").slice(0, 200)}`;
}

export function createFileStore(root: string, options: { temporary?: boolean } = {}): FileStore {
  const base = resolve(root);
  const pathOf = (key: string) => {
    const path = resolve(base, key);
    if (!path.startsWith(`${base}${sep}`)) throw new Error(`storage key outside the store: ${key}`);
    return path;
  };
  return {
    root: base,
    async write(orgId, fileId, bytes) {
      const key = `${folderFor(orgId)}/${fileId}`;
      const path = pathOf(key);
      await mkdir(join(base, folderFor(orgId)), { recursive: true });
      // Written then renamed: a crash mid-write leaves a .partial, never a half file under the real key.
      const partial = `${path}.${randomUUID()}.partial`;
      try {
        await writeFile(partial, bytes, { flag: "wx" });
        await rename(partial, path);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
      return key;
    },
    read: (key) => readFile(pathOf(key)),
    async remove(key) {
      await rm(pathOf(key), { force: true });
    },
    async dispose() {
      if (options.temporary) await rm(base, { recursive: true, force: true });
    },
  };
}

/** The store each app's file routes use, by the app's configuration (tests look at the bytes through it). */
export const fileStores = new WeakMap<AppConfig, FileStore>();

/** The store for this server: DATA_DIR/files, or a temporary folder for an in-memory database. */
export function fileStoreFor(config: AppConfig, inMemoryDatabase: boolean): FileStore {
  let store: FileStore;
  if (inMemoryDatabase) {
    store = createFileStore(mkdtempSync(join(tmpdir(), "vap-files-")), { temporary: true });
  } else {
    // Created on the first upload.
    store = createFileStore(join(config.dataDir, "files"));
  }
  fileStores.set(config, store);
  return store;
}
