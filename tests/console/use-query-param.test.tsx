import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, useLocation, useNavigate } from "react-router";
import { describe, expect, it } from "vitest";
import { useQueryParam } from "../../src/hooks/use-query-param";

/**
 * A screen with a drawer in the address (?call=) beside a filter another hook writes (as Refine's
 * syncWithLocation does): "Filter, then open" makes both changes before the router renders the first.
 */
function Screen() {
  const [call, setCall] = useQueryParam("call");
  const navigate = useNavigate();
  const { search } = useLocation();
  return (
    <>
      <button type="button" onClick={() => setCall("c1")}>
        Open
      </button>
      <button type="button" onClick={() => setCall(undefined)}>
        Close
      </button>
      <button
        type="button"
        onClick={() => {
          navigate("?filter=busy", { replace: true });
          setCall("c2");
        }}
      >
        Filter, then open
      </button>
      <output aria-label="address">{search}</output>
      <output aria-label="open call">{call ?? "none"}</output>
    </>
  );
}

const address = () => screen.getByRole("status", { name: "address" }).textContent;

/** The screen at `path` (a memory router), and a user to click in it. */
function renderAt(path: string) {
  render(
    <MemoryRouter initialEntries={[path]}>
      <Screen />
    </MemoryRouter>,
  );
  return userEvent.setup();
}

describe("useQueryParam", () => {
  it("reads, sets and removes its parameter, keeping the others", async () => {
    const user = renderAt("/call-logs?pageSize=20&filter=busy");
    expect(screen.getByRole("status", { name: "open call" })).toHaveTextContent("none");
    await user.click(screen.getByRole("button", { name: "Open" }));
    expect(address()).toBe("?pageSize=20&filter=busy&call=c1");
    expect(screen.getByRole("status", { name: "open call" })).toHaveTextContent("c1");
    await user.click(screen.getByRole("button", { name: "Close" }));
    expect(address()).toBe("?pageSize=20&filter=busy");
  });

  it("keeps a change of the address the router has not rendered yet (a filter written just before)", async () => {
    const user = renderAt("/call-logs?pageSize=20");
    await user.click(screen.getByRole("button", { name: "Filter, then open" }));
    // Built on the render's copy of the address, the filter was lost: "?pageSize=20&call=c2".
    expect(address()).toBe("?filter=busy&call=c2");
  });
});
