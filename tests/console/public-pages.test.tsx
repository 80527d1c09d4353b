import { render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { forgetPublicConfig } from "../../src/config/public-config";
import { RootRoutes } from "../../src/root-routes";
import { installFetchFake, json } from "./fetch-fake";

// Records whether the sign-in libraries, the admin shell's framework or the voice SDK were ever imported.
const loaded = vi.hoisted(() => new Set<string>());
vi.mock("better-auth/react", async (importOriginal) => {
  loaded.add("better-auth");
  return importOriginal();
});
vi.mock("@clerk/react", async (importOriginal) => {
  loaded.add("@clerk/react");
  return importOriginal();
});
vi.mock("@refinedev/core", async (importOriginal) => {
  loaded.add("@refinedev/core");
  return importOriginal();
});
vi.mock("antd", async (importOriginal) => {
  loaded.add("antd");
  return importOriginal();
});
vi.mock("@vapi-ai/web", () => {
  loaded.add("@vapi-ai/web");
  return { default: class {} };
});
vi.mock("@daily-co/daily-js", () => {
  loaded.add("@daily-co/daily-js");
  return { default: {} };
});

const AGENT_ID = "3f2a9c1b-5d4e-4f60-8a7b-9c0d1e2f3a4b";

beforeEach(() => forgetPublicConfig());

describe("the public pages", () => {
  it("/public/agent/:agentID shows the agent without sign-in, the shell or the voice SDK; it asks only for the public profile", async () => {
    const fetch = installFetchFake().on("GET", `/api/agent/${AGENT_ID}/public`, () =>
      json({ data: { id: AGENT_ID, name: "Ava from Acme", description: "Books your table.", firstMessage: "Hi!", endCallMessage: "Bye!" } }),
    );
    render(
      <MemoryRouter initialEntries={[`/public/agent/${AGENT_ID}`]}>
        <RootRoutes />
      </MemoryRouter>,
    );

    await screen.findByRole("heading", { level: 1, name: "Ava from Acme" }, { timeout: 10_000 });
    expect(screen.getByRole("button", { name: "Start Call" })).toBeInTheDocument();
    expect(fetch.requests.map((request) => `${request.method} ${request.url}`)).toEqual([`GET /api/agent/${AGENT_ID}/public`]);
    expect(fetch.requests[0]!.headers.get("Authorization")).toBeNull();
    expect([...loaded]).toEqual([]);
  });

  it("/web-call/:callSlug shows the call without sign-in, the shell or the voice SDK; it asks only for the call's details", async () => {
    const fetch = installFetchFake().on("GET", "/api/webcall/public/spring-sale", () =>
      json({ data: { callTitle: "Spring sale", name: "Ada", subTitle: "Two minutes.", assistantId: "asst_1", instructions: [] } }),
    );
    render(
      <MemoryRouter initialEntries={["/web-call/spring-sale"]}>
        <RootRoutes />
      </MemoryRouter>,
    );

    await screen.findByRole("heading", { level: 1, name: "Spring sale" }, { timeout: 10_000 });
    expect(screen.getByRole("button", { name: "Start Call" })).toBeInTheDocument();
    expect(fetch.requests.map((request) => `${request.method} ${request.url}`)).toEqual(["GET /api/webcall/public/spring-sale"]);
    expect(fetch.requests[0]!.headers.get("Authorization")).toBeNull();
    expect([...loaded]).toEqual([]);
  });
});
