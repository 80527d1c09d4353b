import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { Integration } from "../../contract/order";
import { IntegrationsDrawer } from "../../src/components/orders/settings";
import { makeIntegration, renderPanel, SHOP_ID, stubClipboard } from "./orders-settings-fixtures";
import { findDialog, installFetchFake, json } from "./test-utils";

const SECRET = "q3VtZ2V0LXNlY3JldC1vbmx5LXNob3duLW9uY2UtMTIzNA";
const SHOP = makeIntegration({ id: SHOP_ID, kind: "shopify", name: "My shop", secret_hint: "1234", orders: 0, last_delivery_at: null });

async function openIntegrations({ role = "org:admin", integrations = [makeIntegration({ is_demo: true })] }: { role?: "org:admin" | "org:member"; integrations?: Integration[] } = {}) {
  const fetch = installFetchFake();
  const state = { integrations: [...integrations] };
  fetch.on("GET", "/api/integration/", () => json({ data: state.integrations, total: state.integrations.length, page: 1, limit: 20 }));
  const rendered = renderPanel(IntegrationsDrawer, { role, fetch });
  const drawer = await findDialog("Store integrations");
  if (integrations.length) await within(drawer).findByText(integrations[0]!.name);
  return { ...rendered, drawer, state };
}

const itemOf = (drawer: HTMLElement, name: string) => within(within(drawer).getByRole("list", { name: "Store integrations" })).getByRole("listitem", { name });

describe("store integrations", () => {
  it("lists each store with its kind, webhook URL to copy, last delivery, orders and secret's end", async () => {
    const { user, drawer } = await openIntegrations({ integrations: [makeIntegration({ is_demo: true }), SHOP] });
    const writeText = stubClipboard();
    const demo = itemOf(drawer, "Sandbox shop");
    expect(within(demo).getByText("Demo store")).toBeInTheDocument();
    expect(within(demo).getByText("Other store (signed JSON)")).toBeInTheDocument();
    expect(within(demo).getByLabelText("Webhook URL of Sandbox shop")).toHaveValue(makeIntegration().webhook_url);
    expect(within(demo).getByText(/^Last delivery /)).toBeInTheDocument();
    expect(within(demo).getByText("12 orders")).toBeInTheDocument();
    expect(within(demo).getByText("Secret ends in …Xy9Q")).toBeInTheDocument();
    const shop = itemOf(drawer, "My shop");
    expect(within(shop).getByText("Shopify")).toBeInTheDocument();
    expect(within(shop).getByText("No delivery yet")).toBeInTheDocument();

    await user.click(within(shop).getByRole("button", { name: "Copy webhook URL of My shop" }));
    expect(writeText).toHaveBeenLastCalledWith(SHOP.webhook_url);
    await screen.findByText("Copied");
  });

  it("connects a Shopify store and shows its webhook URL and secret once, with copy buttons and where to paste them", async () => {
    const { user, fetch, drawer, state, onChanged } = await openIntegrations();
    fetch.on("POST", "/api/integration/", () => {
      state.integrations.push(SHOP);
      return json({ data: { ...SHOP, secret: SECRET } }, 201);
    });
    expect(within(drawer).getByRole("radio", { name: "Shopify" })).toBeChecked();
    await user.type(within(drawer).getByLabelText("Name"), "  My shop ");
    await user.click(within(drawer).getByRole("button", { name: "Connect" }));

    const dialog = await findDialog("Connect “My shop”");
    expect(fetch.to("POST", "/api/integration/").map((request) => request.body)).toEqual([{ kind: "shopify", name: "My shop" }]);
    expect(within(dialog).getByLabelText("Webhook URL")).toHaveValue(SHOP.webhook_url);
    expect(within(dialog).getByLabelText("Secret")).toHaveValue(SECRET);
    expect(within(dialog).getByText("You will not see this secret again")).toBeInTheDocument();
    expect(within(dialog).getByText(/Settings → Notifications → Webhooks → Create webhook/)).toBeInTheDocument();
    expect(within(dialog).getByText(/checkouts\/create.*checkouts\/update.*orders\/create.*orders\/paid/)).toBeInTheDocument();
    expect(within(dialog).getByText(/custom app/)).toBeInTheDocument();

    const writeText = stubClipboard();
    await user.click(within(dialog).getByRole("button", { name: "Copy secret" }));
    expect(writeText).toHaveBeenLastCalledWith(SECRET);
    await user.click(within(dialog).getByRole("button", { name: "Copy webhook URL" }));
    expect(writeText).toHaveBeenLastCalledWith(SHOP.webhook_url);
    expect(onChanged).toHaveBeenCalled();

    // Closed, the secret is gone for good: the list shows only its last four characters.
    await user.click(within(dialog).getByRole("button", { name: "I have copied them" }));
    await within(drawer).findByText("My shop");
    await waitFor(() => expect(document.body.innerHTML).not.toContain(SECRET));
    expect(within(itemOf(drawer, "My shop")).getByText("Secret ends in …1234")).toBeInTheDocument();
  });

  it("sends Shopify's own signing key when the admin gives one", async () => {
    const { user, fetch, drawer } = await openIntegrations();
    const key = "shpss_0123456789abcdef0123456789abcdef";
    fetch.on("POST", "/api/integration/", () => json({ data: { ...SHOP, secret: key } }, 201));
    await user.type(within(drawer).getByLabelText("Name"), "My shop");
    await user.type(within(drawer).getByLabelText("Shopify's signing key (optional)"), key);
    await user.click(within(drawer).getByRole("button", { name: "Connect" }));
    const dialog = await findDialog("Connect “My shop”");
    expect(fetch.to("POST", "/api/integration/")[0]!.body).toEqual({ kind: "shopify", name: "My shop", secret: key });
    expect(within(dialog).getByText("Shopify signs with the key you gave: paste only the webhook URL into Shopify.")).toBeInTheDocument();
  });

  it("gives WooCommerce and other stores their own instructions; a generic store gets test lines signed with its secret", async () => {
    const { user, fetch, drawer } = await openIntegrations();
    const woo = makeIntegration({ kind: "woocommerce", name: "Woo shop" });
    fetch.on("POST", "/api/integration/", () => json({ data: { ...woo, secret: SECRET } }, 201));
    await user.click(within(within(drawer).getByRole("region", { name: "Connect a store" })).getByText("WooCommerce"));
    expect(within(drawer).queryByLabelText("Shopify's signing key (optional)")).toBeNull();
    await user.type(within(drawer).getByLabelText("Name"), "Woo shop");
    await user.click(within(drawer).getByRole("button", { name: "Connect" }));
    let dialog = await findDialog("Connect “Woo shop”");
    expect(fetch.to("POST", "/api/integration/")[0]!.body).toEqual({ kind: "woocommerce", name: "Woo shop" });
    expect(within(dialog).getByText(/WooCommerce → Settings → Advanced → Webhooks → Add webhook/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "I have copied them" }));

    const generic = makeIntegration({ name: "Headless shop" });
    fetch.on("POST", "/api/integration/", () => json({ data: { ...generic, secret: SECRET } }, 201));
    await user.click(within(within(drawer).getByRole("region", { name: "Connect a store" })).getByText("Other store (signed JSON)"));
    await user.type(within(drawer).getByLabelText("Name"), "Headless shop");
    await user.click(within(drawer).getByRole("button", { name: "Connect" }));
    dialog = await findDialog("Connect “Headless shop”");
    expect(within(dialog).getByText(/x-signature, the hex HMAC-SHA256/)).toBeInTheDocument();
    expect(within(dialog).getByText("Send a test checkout")).toBeInTheDocument();
    expect(within(dialog).getByText(new RegExp(`SECRET='${SECRET}'`))).toBeInTheDocument();
  });

  it("shows why a store could not be connected", async () => {
    const { user, fetch, drawer } = await openIntegrations();
    fetch.on("POST", "/api/integration/", () => json({ detail: "At most 20 store integrations per organisation: delete one first.", code: "conflict" }, 409));
    await user.type(within(drawer).getByLabelText("Name"), "One too many");
    await user.click(within(drawer).getByRole("button", { name: "Connect" }));
    const alert = (await within(drawer).findByText("The store could not be connected")).closest<HTMLElement>('[role="alert"]')!;
    expect(within(alert).getByText("The store could not be connected")).toBeInTheDocument();
    expect(within(alert).getByText("At most 20 store integrations per organisation: delete one first.")).toBeInTheDocument();
  });

  it("rotates a secret after a confirmation and shows the new one once", async () => {
    const { user, fetch, drawer } = await openIntegrations({ integrations: [SHOP] });
    fetch.on("POST", `/api/integration/${SHOP_ID}/rotate-secret`, () => json({ data: { ...SHOP, secret_hint: "9876", secret: "brand-new-secret-0123456789-9876" } }));
    await user.click(within(itemOf(drawer, "My shop")).getByRole("button", { name: "Rotate the secret of My shop" }));
    const confirm = await findDialog("Give this store a new secret?");
    expect(within(confirm).getByText(/The current secret of “My shop” stops working at once/)).toBeInTheDocument();
    await user.click(within(confirm).getByRole("button", { name: "Rotate secret" }));

    const dialog = await findDialog("New secret for “My shop”");
    expect(fetch.to("POST", `/api/integration/${SHOP_ID}/rotate-secret`)[0]!.body).toEqual({});
    expect(within(dialog).getByLabelText("Secret")).toHaveValue("brand-new-secret-0123456789-9876");
    expect(within(dialog).getByText("You will not see this secret again")).toBeInTheDocument();
  });

  it("disconnects a store after a confirmation", async () => {
    const { user, fetch, drawer, state, onChanged } = await openIntegrations({ integrations: [SHOP] });
    fetch.on("DELETE", `/api/integration/${SHOP_ID}`, () => {
      state.integrations = [];
      return json({ data: { id: SHOP_ID } });
    });
    await user.click(within(itemOf(drawer, "My shop")).getByRole("button", { name: "Disconnect My shop" }));
    const confirm = await findDialog("Disconnect this store?");
    expect(within(confirm).getByText("“My shop” stops delivering at once. Its orders stay, with their calls and history.")).toBeInTheDocument();
    await user.click(within(confirm).getByRole("button", { name: "Disconnect" }));
    await screen.findByText("Store disconnected");
    expect(fetch.to("DELETE", `/api/integration/${SHOP_ID}`)).toHaveLength(1);
    await within(drawer).findByText("No store connected yet.");
    expect(onChanged).toHaveBeenCalled();
  });

  it("a member sees the stores but cannot connect, rotate or disconnect them", async () => {
    const { drawer } = await openIntegrations({ role: "org:member", integrations: [SHOP] });
    expect(within(drawer).getByText("Only an organization admin can connect, rotate or disconnect stores.")).toBeInTheDocument();
    expect(within(drawer).queryByRole("button", { name: "Connect" })).toBeNull();
    expect(within(drawer).queryByRole("button", { name: /Rotate|Disconnect/ })).toBeNull();
    expect(within(itemOf(drawer, "My shop")).getByLabelText("Webhook URL of My shop")).toHaveValue(SHOP.webhook_url);
  });
});
