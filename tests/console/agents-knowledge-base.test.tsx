import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { KnowledgeBaseFile } from "../../contract/file";
import { AGENT_ID, FILES, makeAgent, serveAgents } from "./agents-fixtures";
import { findScreen, installFetchFake, json, renderConsole } from "./test-utils";

const PUT_PATH = `/api/agent/${AGENT_ID}`;
const UPLOADED: KnowledgeBaseFile = {
  id: "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
  name: "faq.md",
  mime_type: "text/markdown",
  size_bytes: 2048,
  created_at: "2026-03-03T10:00:00.000Z",
};

async function openEditor() {
  const fetch = installFetchFake();
  const files = [...FILES];
  serveAgents(fetch, [makeAgent()], files);
  const view = renderConsole({ path: `/agent/${AGENT_ID}`, fetch });
  await findScreen("Edit Agent");
  await screen.findByText("pricing.pdf");
  return { ...view, files };
}

function uploadInput(): HTMLInputElement {
  return document.querySelector<HTMLInputElement>('#agent-knowledge input[type="file"]')!;
}

describe("the knowledge base", () => {
  it("lists the organisation's files and shows the upload limits", async () => {
    await openEditor();
    expect(screen.getByText("PDF, TXT, MD, CSV, JSON or DOCX; up to 10 MB each.")).toBeInTheDocument();
    expect(screen.getByText("240 KB")).toBeInTheDocument();
    expect(uploadInput()).toHaveAttribute("accept", ".pdf,.txt,.md,.csv,.json,.docx");
  });

  it("uploads a file as multipart, selects it for the agent, and saves the selection", async () => {
    const { user, fetch, files } = await openEditor();
    fetch.on("POST", "/api/file/upload", () => {
      files.push(UPLOADED);
      return json({ data: UPLOADED }, 201);
    });

    await user.upload(uploadInput(), new File(["# FAQ"], "faq.md", { type: "text/markdown" }));

    await screen.findByText("faq.md uploaded");
    const [upload] = fetch.to("POST", "/api/file/upload");
    expect(upload?.headers.get("authorization")).toBe("Bearer token-1");
    const sent = fetch.fetch.mock.calls.find(([url]) => String(url).endsWith("/api/file/upload"))?.[1]?.body;
    expect(sent).toBeInstanceOf(FormData);
    expect(((sent as FormData).get("file") as File).name).toBe("faq.md");

    await user.click(screen.getByRole("button", { name: "Save" }));
    await screen.findByText("Agent saved");
    expect(fetch.to("PUT", PUT_PATH)[0]?.body).toEqual({ knowledge_base_files: [UPLOADED.id] });
  });

  it("refuses a file type the server does not take, without sending it", async () => {
    const { fetch } = await openEditor();
    // applyAccept: false picks a file the file dialog would hide, as a drag and drop could bring.
    const user = userEvent.setup({ applyAccept: false });

    await user.upload(uploadInput(), new File(["MZ"], "setup.exe", { type: "application/octet-stream" }));

    await screen.findByText("This file type is not supported. Use PDF, TXT, MD, CSV, JSON or DOCX.");
    expect(fetch.to("POST", "/api/file/upload")).toEqual([]);
  });

  it("shows the server's sentence when the upload is refused", async () => {
    const { user, fetch } = await openEditor();
    fetch.on("POST", "/api/file/upload", () =>
      json({ detail: "The file is larger than 10 MB.", code: "payload_too_large" }, 413),
    );

    await user.upload(uploadInput(), new File(["x"], "big.pdf", { type: "application/pdf" }));

    await screen.findByText("The file could not be uploaded");
    expect(screen.getByText("The file is larger than 10 MB.")).toBeInTheDocument();
  });

  it("deletes a file after a confirmation, and says why when an agent still uses it", async () => {
    const { user, fetch } = await openEditor();
    const path = `/api/file/file/${FILES[0]!.id}`;
    fetch.on("DELETE", path, () =>
      json({ detail: "pricing.pdf is used by the agent Purchase Completion Agent.", code: "conflict" }, 409),
    );

    await user.click(screen.getByRole("button", { name: "Delete pricing.pdf" }));
    const confirm = await screen.findByRole("tooltip");
    await user.click(within(confirm).getByRole("button", { name: "Delete" }));

    await screen.findByText("pricing.pdf is used by the agent Purchase Completion Agent.");
    expect(fetch.to("DELETE", path)).toHaveLength(1);

    fetch.on("DELETE", path, () => json({ data: { id: FILES[0]!.id } }));
    await user.click(screen.getByRole("button", { name: "Delete pricing.pdf" }));
    await user.click(within(await screen.findByRole("tooltip")).getByRole("button", { name: "Delete" }));
    await screen.findByText("File deleted");
    await waitFor(() => expect(fetch.to("DELETE", path)).toHaveLength(2));
  });
});
