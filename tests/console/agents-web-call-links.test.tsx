import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent, { PointerEventsCheckLevel } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { Agent } from "../../contract/agent";
import { WEB_CALL_LIMITS, type WebCallLink } from "../../contract/web-call";
import { SharePanel } from "../../src/components/agents/share-panel";
import { AGENT_ID, makeAgent, OTHER_AGENT_ID } from "./agents-fixtures";
import { ConsoleProviders, FakeSession, installFetchFake, json, type FetchFake, type RecordedRequest } from "./test-utils";

const ORIGIN = window.location.origin;

function makeLink(overrides: Partial<WebCallLink> = {}): WebCallLink {
  const slug = overrides.slug ?? "AbCdEfGhIjKlMnOpQrStUv";
  return {
    id: "1f2e3d4c-5b6a-4798-8a7b-6c5d4e3f2a10",
    slug,
    url: `/web-call/${slug}`,
    agent_id: AGENT_ID,
    call_title: "Spring check-in",
    recipient_name: "Grace",
    sub_title: "",
    instructions: [],
    created_at: "2026-03-04T09:00:00.000Z",
    ...overrides,
  };
}

const OURS = makeLink();
const THEIRS = makeLink({
  id: "2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d",
  slug: "ZyXwVuTsRqPoNmLkJiHgFe",
  agent_id: OTHER_AGENT_ID,
  call_title: "Another agent's link",
});
const NEW_ID = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f";
const NEW_SLUG = "NeWsLuG0123456789abcde";

/**
 * A small web-call server: GET /webcall/ (the organisation's links, paged), POST (answers a new link,
 * or `createFails`), DELETE /webcall/{id}. No default phone number (404).
 */
function serveLinks(fetch: FetchFake, initial: WebCallLink[], options: { createFails?: () => Response } = {}) {
  const stored = [...initial];
  const serveDelete = (link: WebCallLink) =>
    fetch.on("DELETE", `/api/webcall/${link.id}`, () => {
      const index = stored.findIndex((candidate) => candidate.id === link.id);
      if (index < 0) return json({ detail: "Web call not found: the link may have been deleted.", code: "not_found" }, 404);
      stored.splice(index, 1);
      return json({ data: { id: link.id } });
    });
  fetch
    .on("GET", "/api/phonenumber/default", () => json({ detail: "No default phone number yet", code: "not_found" }, 404))
    .on("GET", "/api/webcall/", (request) => {
      const page = Number(request.query.get("page"));
      const limit = Number(request.query.get("limit"));
      return json({ data: stored.slice((page - 1) * limit, page * limit), total: stored.length, page, limit });
    })
    .on("POST", "/api/webcall/", (request: RecordedRequest) => {
      if (options.createFails) return options.createFails();
      const body = request.body as Omit<WebCallLink, "id" | "slug" | "url" | "created_at" | "instructions"> & {
        instructions: Array<Omit<WebCallLink["instructions"][number], "id">>;
      };
      const link: WebCallLink = {
        ...body,
        id: NEW_ID,
        slug: NEW_SLUG,
        url: `/web-call/${NEW_SLUG}`,
        instructions: body.instructions.map((instruction, index) => ({ id: `i${index}`, ...instruction })),
        created_at: "2026-03-05T09:00:00.000Z",
      };
      stored.unshift(link);
      serveDelete(link);
      return json({ data: link }, 201);
    });
  for (const link of initial) serveDelete(link);
  return stored;
}

function renderPanel({ agent = makeAgent({ agent_name: "Reception" }), links = [OURS, THEIRS], disabled = false, createFails }: {
  agent?: Agent;
  links?: WebCallLink[];
  disabled?: boolean;
  createFails?: () => Response;
} = {}) {
  const fetch = installFetchFake();
  const stored = serveLinks(fetch, links, { createFails });
  // No pointer-events check per click: it reads computed styles up the tree, which is slow in jsdom.
  const user = userEvent.setup({ pointerEventsCheck: PointerEventsCheckLevel.Never });
  render(
    <ConsoleProviders session={new FakeSession()} path={`/agent/${agent.id}`}>
      <SharePanel agent={agent} disabled={disabled} />
    </ConsoleProviders>,
  );
  const writeText = vi.fn(async (_text: string) => undefined);
  Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
  return { user, fetch, stored, writeText };
}

const section = () => within(screen.getByRole("region", { name: "Web-call links" }));
// Role queries walk the whole modal form on every call; text and label queries are much cheaper in jsdom.
const dialog = () => within(screen.getByText("New web-call link", { selector: ".ant-modal-title" }).closest<HTMLElement>(".ant-modal")!);
const instruction = (position: number) =>
  within(dialog().getByText(`Instruction ${position}`, { selector: "legend" }).closest<HTMLElement>("fieldset")!);

/** Opens the icon select inside `scope` and picks the option with this text. */
async function pickIcon(user: ReturnType<typeof userEvent.setup>, scope: ReturnType<typeof within>, option: string) {
  await user.click(scope.getByRole("combobox", { name: "Icon" }));
  const options = await screen.findAllByTitle(option);
  await user.click(options.find((element) => element.classList.contains("ant-select-item-option")) ?? options.at(-1)!);
}

async function openModal(user: ReturnType<typeof userEvent.setup>) {
  await user.click(section().getByRole("button", { name: "New web-call link" }));
  return screen.findByRole("dialog", { name: "New web-call link" });
}

describe("web-call links", () => {
  it("lists this agent's links only, copies a link and deletes one after a confirmation", async () => {
    const { user, fetch, writeText } = renderPanel();

    const url = `${ORIGIN}/web-call/${OURS.slug}`;
    expect(await section().findByLabelText("Link for Spring check-in")).toHaveValue(url);
    expect(section().getByText("For Grace")).toBeInTheDocument();
    expect(section().queryByText("Another agent's link")).not.toBeInTheDocument();
    expect(fetch.to("GET", "/api/webcall/").map((request) => request.url)).toEqual(["/api/webcall/?page=1&limit=100"]);

    await user.click(section().getByRole("button", { name: "Copy link for Spring check-in" }));
    expect(writeText).toHaveBeenLastCalledWith(url);
    await screen.findByText("Link copied");

    await user.click(section().getByRole("button", { name: "Delete web-call link Spring check-in" }));
    const confirm = await screen.findByRole("tooltip");
    expect(within(confirm).getByText("Delete this web-call link?")).toBeInTheDocument();
    await user.click(within(confirm).getByRole("button", { name: "Cancel" }));
    expect(fetch.to("DELETE", `/api/webcall/${OURS.id}`)).toHaveLength(0);

    await user.click(section().getByRole("button", { name: "Delete web-call link Spring check-in" }));
    await user.click(within(await screen.findByRole("tooltip")).getByRole("button", { name: "Delete" }));
    await screen.findByText("Web-call link deleted");
    expect(fetch.to("DELETE", `/api/webcall/${OURS.id}`)).toHaveLength(1);
    await waitFor(() => expect(section().queryByLabelText("Link for Spring check-in")).not.toBeInTheDocument());
    expect(section().getByText("No web-call links for this agent yet.")).toBeInTheDocument();
  });

  it("reads every page of the organisation's links", async () => {
    const others = Array.from({ length: 100 }, (_, index) =>
      makeLink({ id: `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`, slug: `other${index}`, agent_id: OTHER_AGENT_ID }),
    );
    const { fetch } = renderPanel({ links: [...others, OURS] });

    expect(await section().findByLabelText("Link for Spring check-in")).toHaveValue(`${ORIGIN}/web-call/${OURS.slug}`);
    expect(fetch.to("GET", "/api/webcall/").map((request) => request.url)).toEqual([
      "/api/webcall/?page=1&limit=100",
      "/api/webcall/?page=2&limit=100",
    ]);
  });

  it("creates a link from the prefilled defaults with the instructions in the order shown, then offers it to copy", async () => {
    const { user, fetch, writeText } = renderPanel({ links: [] });
    await section().findByText("No web-call links for this agent yet.");
    await openModal(user);

    expect(dialog().getByLabelText("Call title")).toHaveValue("Talk to Reception");
    expect(dialog().getByLabelText("Recipient name")).toHaveValue("");
    expect(instruction(1).getByLabelText("Title")).toHaveValue("Find a quiet place");
    expect(instruction(2).getByLabelText("Title")).toHaveValue("Allow the microphone");
    expect(instruction(3).getByLabelText("Title")).toHaveValue("Speak naturally");
    expect(dialog().queryByRole("group", { name: "Instruction 4" })).not.toBeInTheDocument();

    await user.click(dialog().getByLabelText("Recipient name"));
    await user.paste("  Ada Lovelace ");
    // Speak naturally first, then remove "Allow the microphone", then add one with its own icon.
    await user.click(instruction(3).getByLabelText("Move instruction 3 up"));
    await user.click(instruction(2).getByLabelText("Move instruction 2 up"));
    expect(instruction(1).getByLabelText("Title")).toHaveValue("Speak naturally");
    await user.click(instruction(3).getByLabelText("Remove instruction 3"));
    await user.click(dialog().getByRole("button", { name: "Add instruction" }));
    await pickIcon(user, instruction(3), "Headphones");
    await user.click(instruction(3).getByLabelText("Title"));
    await user.paste("Headphones help");
    await user.click(instruction(3).getByLabelText("Description"));
    await user.paste("They keep the assistant from hearing itself.");

    await user.click(dialog().getByRole("button", { name: "Create link" }));

    const url = `${ORIGIN}/web-call/${NEW_SLUG}`;
    await dialog().findByText("Web-call link created");
    expect(dialog().getByLabelText("Talk to Reception")).toHaveValue(url);
    expect(fetch.to("POST", "/api/webcall/").map((request) => request.body)).toEqual([
      {
        agent_id: AGENT_ID,
        call_title: "Talk to Reception",
        recipient_name: "Ada Lovelace",
        sub_title: "A short voice call right here in your browser: no phone needed.",
        instructions: [
          { icon: "chat", title: "Speak naturally", description: "Talk as you would to a person; you can interrupt at any time." },
          { icon: "quiet", title: "Find a quiet place", description: "Background noise makes it harder for the assistant to understand you." },
          { icon: "headphones", title: "Headphones help", description: "They keep the assistant from hearing itself." },
        ],
      },
    ]);

    await user.click(dialog().getByRole("button", { name: "Copy link for Talk to Reception" }));
    expect(writeText).toHaveBeenLastCalledWith(url);

    await user.click(dialog().getByRole("button", { name: "Done" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(section().getByLabelText("Link for Talk to Reception")).toHaveValue(url);
    expect(section().getByText("For Ada Lovelace")).toBeInTheDocument();

    // Opened again, the form starts from the defaults.
    await openModal(user);
    expect(dialog().getByLabelText("Recipient name")).toHaveValue("");
    expect(instruction(2).getByLabelText("Title")).toHaveValue("Allow the microphone");
  });

  it("shows the contract's messages and sends nothing while a field is invalid", async () => {
    const { user, fetch } = renderPanel({ links: [] });
    await section().findByText("No web-call links for this agent yet.");
    await openModal(user);

    await user.clear(dialog().getByLabelText("Call title"));
    await user.type(dialog().getByLabelText("Call title"), "   ");
    await user.clear(instruction(2).getByLabelText("Title"));
    await user.click(dialog().getByRole("button", { name: "Create link" }));

    // Each field's rule answers on its own (and antd redraws a message as it validates again): wait for all three.
    await waitFor(() => {
      expect(dialog().getByText("Call title is required")).toBeInTheDocument();
      expect(dialog().getByText("Recipient name is required")).toBeInTheDocument();
      expect(instruction(2).getByText("Title is required")).toBeInTheDocument();
    });
    expect(fetch.to("POST", "/api/webcall/")).toHaveLength(0);

    // Fixed, the messages go.
    await user.type(dialog().getByLabelText("Recipient name"), "Ada");
    await waitFor(() => expect(dialog().queryByText("Recipient name is required")).not.toBeInTheDocument());
  });

  it(`allows at most ${WEB_CALL_LIMITS.instructions} instructions`, async () => {
    const { user } = renderPanel({ links: [] });
    await section().findByText("No web-call links for this agent yet.");
    await openModal(user);

    const add = dialog().getByRole("button", { name: "Add instruction" });
    for (let count = 3; count < WEB_CALL_LIMITS.instructions; count++) await user.click(add);
    expect(dialog().getByRole("group", { name: `Instruction ${WEB_CALL_LIMITS.instructions}` })).toBeInTheDocument();
    expect(add).toBeDisabled();
    expect(dialog().getByText(`At most ${WEB_CALL_LIMITS.instructions} instructions.`)).toBeInTheDocument();
  });

  it("shows the server's detail when the link is refused and keeps the form", async () => {
    const { user } = renderPanel({
      links: [],
      createFails: () => json({ detail: "Your role may not change web-call links.", code: "forbidden" }, 403),
    });
    await section().findByText("No web-call links for this agent yet.");
    await openModal(user);
    await user.type(dialog().getByLabelText("Recipient name"), "Ada");
    await user.click(dialog().getByRole("button", { name: "Create link" }));

    await dialog().findByText("Your role may not change web-call links.");
    expect(dialog().getByText("The web-call link could not be created")).toBeInTheDocument();
    expect(dialog().getByLabelText("Recipient name")).toHaveValue("Ada");
    expect(section().getByText("No web-call links for this agent yet.")).toBeInTheDocument();
  });

  it("says why a delete failed", async () => {
    const { user, fetch } = renderPanel();
    fetch.on("DELETE", `/api/webcall/${OURS.id}`, () => json({ detail: "Web call not found: the link may have been deleted.", code: "not_found" }, 404));
    await user.click(await section().findByRole("button", { name: "Delete web-call link Spring check-in" }));
    await user.click(within(await screen.findByRole("tooltip")).getByRole("button", { name: "Delete" }));

    await screen.findByText("The web-call link could not be deleted");
    expect(screen.getByText("Web call not found: the link may have been deleted.")).toBeInTheDocument();
  });

  it("lists and copies, but neither creates nor deletes, for someone who may not edit the agent", async () => {
    renderPanel({ disabled: true });
    await section().findByLabelText("Link for Spring check-in");
    expect(section().getByRole("button", { name: "Copy link for Spring check-in" })).toBeEnabled();
    expect(section().getByRole("button", { name: "New web-call link" })).toBeDisabled();
    expect(section().queryByRole("button", { name: /^Delete web-call link/ })).not.toBeInTheDocument();
  });
});
