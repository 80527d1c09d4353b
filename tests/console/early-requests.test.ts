import { afterEach, describe, expect, it } from "vitest";
import { fetchPublicAgentProfile } from "../../src/components/public/public-api";
import { startEarlyRequests, takeEarly } from "../../src/config/early-requests";
import { installFetchFake, json } from "./test-utils";

const PROFILE = "/api/agent/agent-1/public";
const profile = { data: { id: "agent-1", name: "Front desk", description: "Hello", firstMessage: "Hi", endCallMessage: "Bye" } };

describe("the entry script starts the public agent's profile request before the page's code loads", () => {
  afterEach(() => void takeEarly("/agent/agent-1/public"));

  it("on /public/agent/:id the page uses the request already made: one request, not two", async () => {
    const fetch = installFetchFake().on("GET", PROFILE, () => json(profile));
    startEarlyRequests("/public/agent/agent-1");
    expect(fetch.to("GET", PROFILE)).toHaveLength(1);

    expect(await fetchPublicAgentProfile("agent-1")).toMatchObject({ name: "Front desk" });
    expect(fetch.to("GET", PROFILE)).toHaveLength(1);
    // Used once: a later load (e.g. another agent page in the same tab) asks again.
    await fetchPublicAgentProfile("agent-1");
    expect(fetch.to("GET", PROFILE)).toHaveLength(2);
  });

  it("an early request that failed is the page's failure, as if it had asked itself", async () => {
    installFetchFake().on("GET", PROFILE, () => json({ detail: "Agent not found", code: "not_found" }, 404));
    startEarlyRequests("/public/agent/agent-1");
    await expect(fetchPublicAgentProfile("agent-1")).rejects.toMatchObject({ status: 404, detail: "Agent not found" });
  });

  it("other pages start nothing", () => {
    const fetch = installFetchFake();
    for (const path of ["/dashboard", "/web-call/abc", "/public/agent/", "/public/agent/a/b", "/agent/private/x"]) startEarlyRequests(path);
    // A malformed escape neither throws (it would stop the entry script) nor asks anything.
    expect(() => startEarlyRequests("/public/agent/%E0%A4%A")).not.toThrow();
    expect(fetch.requests).toEqual([]);
  });
});
