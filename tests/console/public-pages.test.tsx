import { render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { describe, expect, it, vi } from "vitest";
import { RootRoutes } from "../../src/root-routes";
import { installFetchFake } from "./fetch-fake";

// Records whether the sign-in libraries or the admin shell's framework were ever imported.
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

describe("the public pages", () => {
  it.each([
    ["/web-call/spring-sale", "Web Call"],
    ["/public/agent/3f2a9c", "Talk to an agent"],
  ])("%s shows its title without sign-in, the shell, or any request", async (path, title) => {
    const fetch = installFetchFake();
    render(
      <MemoryRouter initialEntries={[path]}>
        <RootRoutes />
      </MemoryRouter>,
    );

    expect(await screen.findByRole("heading", { level: 1, name: title })).toBeInTheDocument();
    expect(screen.getByText("This page is not built yet.")).toBeInTheDocument();
    expect(fetch.requests).toEqual([]);
    expect([...loaded]).toEqual([]);
  });
});
