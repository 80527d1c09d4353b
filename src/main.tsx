import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter } from "react-router";
import { startEarlyRequests } from "./config/early-requests";
import { loadPublicConfig } from "./config/public-config";
import { RootRoutes } from "./root-routes";
import "./styles.css";

// Ask the server which sign-in runs while the route's code loads; the console waits for the answer.
loadPublicConfig().catch(() => undefined);
// And what the page itself will ask first (the public agent's profile), while its code loads.
startEarlyRequests(window.location.pathname);

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");

createRoot(root).render(
  <StrictMode>
    <BrowserRouter>
      <RootRoutes />
    </BrowserRouter>
  </StrictMode>,
);
