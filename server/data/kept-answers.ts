/**
 * JSON answers kept in memory, each with the version of the data it was made from (GET /agent/{id} keys
 * on the row's xmin, GET /call/ on the organisation's call_list_versions). A kept answer is handed out
 * only for the version it was made under, so whoever reads the version first never gets older data. At
 * most `maxEntries` answers and `maxChars` characters of them are kept, the least recently used dropped
 * first; an answer larger than `maxChars` is not kept at all.
 */
export class KeptAnswers<Version extends string | number> {
  private readonly answers = new Map<string, { version: Version; body: string }>();
  private chars = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxChars = Number.POSITIVE_INFINITY,
  ) {}

  get size(): number {
    return this.answers.size;
  }

  get keptChars(): number {
    return this.chars;
  }

  /** The version the answer kept for `key` was made under, if one is kept. */
  versionOf(key: string): Version | undefined {
    return this.answers.get(key)?.version;
  }

  /** The answer kept for `key` if it was made under `version` (it becomes the most recently used). */
  get(key: string, version: Version): string | undefined {
    const kept = this.answers.get(key);
    if (kept === undefined || kept.version !== version) return undefined;
    // Most recently used last, so the Map's first key is the one to drop.
    this.answers.delete(key);
    this.answers.set(key, kept);
    return kept.body;
  }

  /** Keeps `body` for `key` under `version`, in place of what was kept, within both limits. */
  keep(key: string, version: Version, body: string): void {
    this.drop(key);
    if (body.length > this.maxChars) return;
    this.answers.set(key, { version, body });
    this.chars += body.length;
    while (this.answers.size > this.maxEntries || this.chars > this.maxChars) this.drop(this.answers.keys().next().value as string);
  }

  private drop(key: string): void {
    const kept = this.answers.get(key);
    if (kept === undefined) return;
    this.answers.delete(key);
    this.chars -= kept.body.length;
  }
}
