import { API_BASE } from "../../contract/api";

/** The API base: `/api` on the same origin unless VITE_API_URL points elsewhere (ARCHITECTURE.md §3). */
export const API_URL: string = String(import.meta.env.VITE_API_URL || API_BASE).replace(/\/+$/, "");
