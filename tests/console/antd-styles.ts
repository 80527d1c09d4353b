/**
 * For a console test file whose tests need antd's CSS in the document (see setup.ts: by default antd's
 * <style> elements are not attached, for speed). Call at the top of the file, before anything renders.
 */
export function keepAntdStyles(): void {
  (globalThis as { __keepAntdStyles?: () => void }).__keepAntdStyles?.();
}
