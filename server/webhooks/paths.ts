/** Our webhook routes, below the API base (/api). Vapi's assistants point `server.url` at PUBLIC_URL + /api + this. */
export const VAPI_WEBHOOK_PATH = "/webhooks/vapi";
