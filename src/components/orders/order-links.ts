/** Call Logs opens the call named by `?call=` in its drawer (src/routes/call-logs/list). */
export const callLogsCallPath = (callId: string): string => `/call-logs?call=${encodeURIComponent(callId)}`;
