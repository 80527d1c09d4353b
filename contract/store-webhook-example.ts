/**
 * "Send a test checkout": the shell lines that sign and post a sample abandoned checkout to a generic store
 * integration, for people trying the product (the console can show them beside a secret it has just been
 * given; the README shows the same). zod-free, so the console can import it. Shopify and WooCommerce send
 * their own test deliveries from their admin screens.
 *
 * The sample's customer number ends in 00, which the sandbox answers: with follow-up on, the order is
 * called, the customer agrees, and it waits for the store's order.paid (an example follows the checkout).
 */

export interface TestCheckoutOptions {
  webhookUrl: string;
  secret: string;
  /** E.164; default +14155550100 (the sandbox answers …00). */
  phone?: string;
}

/** Single-quoted for a POSIX shell. */
const quoted = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * bash lines: a checkout.abandoned with a fresh id and time, signed (hex HMAC-SHA256 of "{timestamp}.{body}")
 * with openssl and posted with curl; then the order.paid that would recover it. Needs bash, openssl and curl.
 */
export function testCheckoutShell(options: TestCheckoutOptions): string {
  const phone = options.phone ?? "+14155550100";
  return [
    `SECRET=${quoted(options.secret)}`,
    `URL=${quoted(options.webhookUrl)}`,
    'ID="test-$(date +%s)"; NOW="$(date -u +%Y-%m-%dT%H:%M:%SZ)"',
    `BODY='{"id":"evt-'"$ID"'","event":"checkout.abandoned","created_at":"'"$NOW"'","order":{"id":"'"$ID"'","reference":"#TEST","customer":{"name":"Test Customer","phone":"${phone}"},"items":[{"name":"Blue mug","quantity":2,"price":"12.00"},{"name":"Tote bag","quantity":1,"price":"35.90"}],"total":"59.90","currency":"USD","checkout_url":"https://shop.example.com/checkout/'"$ID"'","call_consent":{"given":true,"source":"Test checkout"}}}'`,
    "send() { TS=$(date +%s); SIG=$(printf '%s.%s' \"$TS\" \"$1\" | openssl dgst -sha256 -hmac \"$SECRET\" | sed 's/^.* //'); curl -sS \"$URL\" -H 'content-type: application/json' -H \"x-timestamp: $TS\" -H \"x-signature: $SIG\" --data-binary \"$1\"; echo; }",
    'send "$BODY"',
    "# Later, when the customer pays:",
    `# send '{"id":"paid-'"$ID"'","event":"order.paid","created_at":"'"$(date -u +%Y-%m-%dT%H:%M:%SZ)"'","order":{"id":"'"$ID"'","paid_amount":"59.90","currency":"USD"}}'`,
  ].join("\n");
}
