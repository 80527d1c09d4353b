import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createMemoryRouter, RouterProvider } from "react-router";
import { SessionStoreProvider } from "../../src/auth/provider";
import { localUi } from "../../src/components/auth/local";
import { AntdRoot } from "../../src/providers/antd-root";
import { RefineRoot } from "../../src/providers/refine-root";
import { ConsoleRoutes } from "../../src/routes";
import { describe, expect, it } from "vitest";
import { AGENT_ID, makeAgent, OTHER_AGENT_ID, pickOption, selectedOption, serveAgents } from "./agents-fixtures";
import { FakeSession, findDialog, findScreen, installFetchFake, json, renderConsole, waitForPath } from "./test-utils";

const EDITOR = `/agent/${AGENT_ID}`;
const PUT_PATH = `/api/agent/${AGENT_ID}`;

async function openEditor(fetch = installFetchFake(), agents = [makeAgent()]) {
  const stored = serveAgents(fetch, agents);
  const view = renderConsole({ path: EDITOR, fetch });
  await findScreen("Edit Agent");
  await screen.findByDisplayValue(agents[0]!.agent_name);
  return { ...view, stored };
}

describe("the agent editor", () => {
  it("shows the spec's defaults for a default agent", async () => {
    const { fetch } = await openEditor();

    expect(screen.getByLabelText("Agent name")).toHaveValue("Purchase Completion Agent");
    expect(screen.getByLabelText("Agent type")).toHaveValue("agent");
    expect(screen.getByLabelText("Welcome message")).toHaveValue("Hello! How are you doing today?");
    expect(screen.getByLabelText("End-call message")).toHaveValue("Thank you for calling. Have a great day!");
    expect(screen.getByLabelText("Silence timeout")).toHaveValue("10");
    expect(screen.getByLabelText("Maximum call duration")).toHaveValue("240");
    expect(screen.getByLabelText("Max tokens")).toHaveValue("500");
    expect(screen.getByLabelText("Temperature")).toHaveValue("0.5");
    expect(screen.getByRole("switch", { name: "Emotion recognition" })).toBeChecked();
    await waitFor(() => expect(selectedOption("Model provider")).toBe("OpenAI"));
    expect(selectedOption("Model")).toBe("GPT-4o");
    expect(selectedOption("Voice provider")).toBe("Deepgram");
    expect(selectedOption("Voice")).toBe("Angus (male, Irish)");
    expect(selectedOption("Transcriber provider")).toBe("Deepgram");
    expect(selectedOption("Transcriber model")).toBe("nova-3");
    expect(selectedOption("Language")).toBe("English");
    expect(selectedOption("Success evaluation rubric")).toBe("PercentageScale");
    expect(selectedOption("Background sound")).toBe("Off");
    expect(screen.getByLabelText("Speed")).toHaveValue("1.0");
    expect(screen.getByLabelText("Wait before speaking")).toHaveValue("2.0");
    expect(screen.getByLabelText("After punctuation")).toHaveValue("0.8");
    expect(screen.getByLabelText("Without punctuation")).toHaveValue("1.8");
    expect(screen.getByLabelText("After a number")).toHaveValue("1.1");
    expect(screen.getByLabelText("Words before stopping")).toHaveValue("3");
    expect(screen.getByLabelText("Voice seconds before stopping")).toHaveValue("1.1");
    expect(screen.getByLabelText("Back-off")).toHaveValue("1.1");
    expect(screen.getByRole("switch", { name: "Record audio" })).toBeChecked();
    expect(screen.getByRole("switch", { name: "Record video (web calls)" })).not.toBeChecked();
    expect(screen.getByRole("switch", { name: "Let the agent end the call" })).not.toBeChecked();
    expect(screen.getByLabelText("Forward calls to")).toHaveValue("");
    expect(screen.getByLabelText("Summary prompt")).toHaveValue(
      "Summarize the conversation in bullet points: who called, what they wanted, what was agreed and any follow-up needed.",
    );
    expect(screen.getByText("Sandbox")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Save" })).toBeDisabled();
    expect(fetch.to("PUT", PUT_PATH)).toEqual([]);
  });

  it("shows the schema's message beside an out-of-range setting and sends nothing", async () => {
    const { user, fetch } = await openEditor();

    const silence = screen.getByLabelText("Silence timeout");
    await user.clear(silence);
    await user.type(silence, "5");
    await screen.findByText("silence_timeout_seconds must be between 10 and 3600 seconds");
    expect(screen.getByText(/From 10 to 3600 seconds\./)).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Save" }));
    await screen.findByText("Some settings need fixing before saving");
    expect(fetch.to("PUT", PUT_PATH)).toEqual([]);
  });

  it("refuses a forwarding number that is not E.164", async () => {
    const { user, fetch } = await openEditor();

    await user.type(screen.getByLabelText("Forward calls to"), "4155550123");
    expect(
      await screen.findByText("forward_phone_number must be in E.164 form, e.g. +14155550123"),
    ).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Save" }));
    await screen.findByText("Some settings need fixing before saving");
    expect(fetch.to("PUT", PUT_PATH)).toEqual([]);

    // Spaces, dashes and brackets people type are dropped: this one is valid.
    await user.clear(screen.getByLabelText("Forward calls to"));
    await user.type(screen.getByLabelText("Forward calls to"), "+1 (415) 555-0123");
    await user.click(screen.getByRole("button", { name: "Save" }));
    await screen.findByText("Agent saved");
    expect(fetch.to("PUT", PUT_PATH).map((request) => request.body)).toEqual([{ forward_phone_number: "+14155550123" }]);
  });

  it("saves only what changed, nested plans field by field, and says 'Agent saved'", async () => {
    const { user, fetch, stored } = await openEditor();

    const name = screen.getByLabelText("Agent name");
    await user.clear(name);
    await user.type(name, "Checkout helper");
    const silence = screen.getByLabelText("Silence timeout");
    await user.clear(silence);
    await user.type(silence, "30");
    await user.click(screen.getByRole("switch", { name: "Emotion recognition" }));
    await pickOption(user, "Voice", "Luna (female, American)");
    await user.type(screen.getByLabelText("End-call phrases"), "goodbye{Enter}");
    await pickOption(user, "Success evaluation rubric", "PassFail");

    const save = screen.getByRole("button", { name: "Save" });
    expect(save).toBeEnabled();
    await user.click(save);

    await screen.findByText("Agent saved");
    // A page-level notice (spec §9): the top-center container, not a top-right toast.
    expect(screen.getByText("Agent saved").closest(".ant-message")).not.toBeNull();
    expect(fetch.to("PUT", PUT_PATH).map((request) => request.body)).toEqual([
      {
        agent_name: "Checkout helper",
        silence_timeout_seconds: 30,
        emotion_recoginition: false,
        endCallPhrases: ["goodbye"],
        analysis_plan: { success_evaluation_rubric: "PassFail" },
        voice: { voice_providerId: "luna", voice_name: "Luna" },
      },
    ]);
    expect(stored.get(AGENT_ID)?.voice.voice_providerId).toBe("luna");
    // Saved: nothing left to save, and leaving asks nothing.
    await waitFor(() => expect(screen.getByRole("button", { name: "Save" })).toBeDisabled());
  });

  it("shows the server's detail when the save fails and keeps the edits", async () => {
    const fetch = installFetchFake();
    const { user } = await openEditor(fetch);
    fetch.on("PUT", PUT_PATH, () =>
      json({ detail: "Vapi refused the assistant: voice.voiceId is not a known voice.", code: "provider_rejected" }, 502),
    );

    const name = screen.getByLabelText("Agent name");
    await user.clear(name);
    await user.type(name, "Checkout helper");
    await user.click(screen.getByRole("button", { name: "Save" }));

    await screen.findByText("The agent could not be saved");
    expect(screen.getByText("Vapi refused the assistant: voice.voiceId is not a known voice.")).toBeInTheDocument();
    expect(screen.getByLabelText("Agent name")).toHaveValue("Checkout helper");
    expect(screen.getByRole("button", { name: "Save" })).toBeEnabled();
  });

  it("shows the server's 400 about a tool id under Tool IDs as well as in the toast", async () => {
    const fetch = installFetchFake();
    const { user } = await openEditor(fetch);
    const detail = 'model_tool_id: "book-appointment" is not a tool id (a tool id is the tool\'s UUID at the voice provider)';
    fetch.on("PUT", PUT_PATH, () => json({ detail, code: "validation_error" }, 400));

    await user.type(screen.getByLabelText("Tool IDs"), "book-appointment{Enter}");
    await user.click(screen.getByRole("button", { name: "Save" }));

    await screen.findByText("The agent could not be saved");
    expect(screen.getByText(detail)).toBeInTheDocument();
    const hint = '"book-appointment" is not a tool id (a tool id is the tool\'s UUID at the voice provider)';
    await screen.findByText(hint);
    expect(screen.getByText(hint).closest(".ant-form-item")).toContainElement(screen.getByLabelText("Tool IDs"));
    expect(fetch.to("PUT", PUT_PATH).map((request) => request.body)).toEqual([{ model_tool_id: ["book-appointment"] }]);
  });

  it("shows each setting a 400 names under that setting, a sentence with its own '; ' kept whole", async () => {
    const fetch = installFetchFake();
    const { user } = await openEditor(fetch);
    const tools = 'no tool "3f1c2b6e-0000-4000-8000-000000000000" exists at the voice provider; create it there first or remove its id';
    const tokens = "must be at most 4096";
    fetch.on("PUT", PUT_PATH, () => json({ detail: `model_tool_id: ${tools}; max_token: ${tokens}`, code: "validation_error" }, 400));

    await user.type(screen.getByLabelText("Tool IDs"), "3f1c2b6e-0000-4000-8000-000000000000{Enter}");
    await user.click(screen.getByRole("button", { name: "Save" }));

    await screen.findByText(tools);
    expect(screen.getByText(tools).closest(".ant-form-item")).toContainElement(screen.getByLabelText("Tool IDs"));
    expect(screen.getByText(tokens).closest(".ant-form-item")).toContainElement(screen.getByLabelText("Max tokens"));
  });

  it("asks before leaving with unsaved changes, in the app and on reload", async () => {
    const { user, pathname } = await openEditor();

    const unload = () => !window.dispatchEvent(new Event("beforeunload", { cancelable: true }));
    expect(unload()).toBe(false);

    await user.type(screen.getByLabelText("Agent name"), " 2");
    expect(unload()).toBe(true);

    await user.click(screen.getByRole("link", { name: "Dashboard" }));
    const dialog = await findDialog("Leave without saving?");
    expect(within(dialog).getByText(/You have unsaved changes to this agent/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Stay" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(pathname()).toBe(EDITOR);
    expect(screen.getByLabelText("Agent name")).toHaveValue("Purchase Completion Agent 2");

    // The Dashboard link's tooltip has been shown by now: find the dialog by its title (see findDialog).
    await user.click(screen.getByRole("link", { name: "Dashboard" }));
    await user.click(within(await findDialog("Leave without saving?")).getByRole("button", { name: "Leave" }));
    await findScreen("Dashboard");
    expect(pathname()).toBe("/dashboard");
    expect(unload()).toBe(false);
  });

  it("under a data router holds Back too, with react-router's useBlocker", async () => {
    const fetch = installFetchFake();
    serveAgents(fetch);
    const tree = (
      <AntdRoot motion={false}>
        <SessionStoreProvider store={new FakeSession()} ui={localUi}>
          <RefineRoot>
            <ConsoleRoutes />
          </RefineRoot>
        </SessionStoreProvider>
      </AntdRoot>
    );
    const router = createMemoryRouter([{ path: "*", element: tree }], { initialEntries: ["/dashboard", EDITOR], initialIndex: 1 });
    const user = userEvent.setup();
    render(<RouterProvider router={router} />);
    await screen.findByDisplayValue("Purchase Completion Agent");

    await user.type(screen.getByLabelText("Agent name"), " 2");
    await act(() => router.navigate(-1));
    const dialog = await screen.findByRole("dialog", { name: "Leave without saving?" });
    await user.click(within(dialog).getByRole("button", { name: "Stay" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(router.state.location.pathname).toBe(EDITOR);

    await act(() => router.navigate(-1));
    await user.click(
      within(await screen.findByRole("dialog", { name: "Leave without saving?" })).getByRole("button", { name: "Leave" }),
    );
    await findScreen("Dashboard");
    expect(router.state.location.pathname).toBe("/dashboard");
  });

  it("offers the chosen provider's voices and disables speed where the provider has none", async () => {
    const { user, fetch } = await openEditor();

    expect(screen.getByLabelText("Speed")).toBeDisabled();
    expect(screen.getByText(/Deepgram voices have no speed setting/)).toBeInTheDocument();

    await pickOption(user, "Voice provider", "ElevenLabs");
    expect(selectedOption("Voice")).toBe("Burt (male)");
    expect(screen.getByLabelText("Speed")).toBeEnabled();
    expect(screen.getByText(/ElevenLabs takes 0.7 to 1.2/)).toBeInTheDocument();
    await pickOption(user, "Voice model", "eleven_turbo_v2_5");

    await user.click(screen.getByRole("button", { name: "Save" }));
    await screen.findByText("Agent saved");
    expect(fetch.to("PUT", PUT_PATH)[0]?.body).toEqual({
      voice: { voice_provider: "11labs", voice_providerId: "burt", voice_name: "Burt", voice_model: "eleven_turbo_v2_5" },
    });
  });

  it("switches appointments at once with the appointment toggle", async () => {
    const fetch = installFetchFake();
    const { user } = await openEditor(fetch);
    const toggle = `/api/agent/${AGENT_ID}/appointment-toggle`;
    fetch.on("PUT", toggle, (request) =>
      json({ data: makeAgent({ appointment_enable: (request.body as { appointment_enable: boolean }).appointment_enable }) }),
    );

    await user.click(screen.getByRole("switch", { name: "Book appointments during calls" }));
    expect((await screen.findByText("Appointments enabled")).closest(".ant-message")).not.toBeNull(); // page-level notice
    expect(fetch.to("PUT", toggle).map((request) => request.body)).toEqual([{ appointment_enable: true }]);
    expect(fetch.to("PUT", PUT_PATH)).toEqual([]);
  });

  it("deletes after a confirmation and opens the next agent", async () => {
    const fetch = installFetchFake();
    const other = makeAgent({ id: OTHER_AGENT_ID, agent_name: "Support line" });
    const { user, pathname } = await openEditor(fetch, [makeAgent(), other]);
    fetch.on("DELETE", PUT_PATH, () => json({ data: { id: AGENT_ID } }));

    await user.click(screen.getByRole("button", { name: "Delete" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete this agent?" });
    await user.click(within(dialog).getByRole("button", { name: "Delete" }));

    await screen.findByText("Agent deleted");
    await waitForPath(pathname, `/agent/${other.id}`);
    await screen.findByDisplayValue("Support line");
    expect(fetch.to("DELETE", PUT_PATH)).toHaveLength(1);
  });

  it("says when the agent does not exist", async () => {
    const fetch = installFetchFake();
    serveAgents(fetch, []);
    fetch.on("GET", PUT_PATH, () => json({ detail: "No agent with this id in your organization.", code: "not_found" }, 404));
    renderConsole({ path: EDITOR, fetch });

    await screen.findByRole("heading", { name: "Agent not found" });
    expect(screen.getByRole("button", { name: "Open your agents" })).toBeInTheDocument();
  });
});
