/** A webhook delivery whose signature does not verify (forged, stale, or body changed): answered 400, never processed. */
export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookSignatureError";
  }
}
