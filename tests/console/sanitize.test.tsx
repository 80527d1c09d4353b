import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { SafeHtml } from "../../src/components/safe-html";
import { sanitizeHtml } from "../../src/lib/sanitize";

describe("sanitizeHtml, the one door from text to HTML", () => {
  it("removes script elements and their content", () => {
    expect(sanitizeHtml('Hello<script>alert("x")</script> there')).toBe("Hello there");
  });

  it("removes event handler attributes such as onerror and onclick", () => {
    const clean = sanitizeHtml('<b onclick="steal()">bold</b><img src=x onerror="steal()">');
    expect(clean).toBe("<b>bold</b>");
    expect(clean).not.toMatch(/onerror|onclick|<img/);
  });

  it("removes style attributes and style elements", () => {
    expect(sanitizeHtml('<p style="position:fixed">text</p><style>body{display:none}</style>')).toBe("<p>text</p>");
  });

  it("drops javascript: link targets but keeps the link text", () => {
    const clean = sanitizeHtml('<a href="javascript:alert(1)">click</a> <a href="JaVaScRiPt:alert(1)">again</a>');
    expect(clean).not.toMatch(/javascript/i);
    expect(clean).toBe("<a>click</a> <a>again</a>");
  });

  it("keeps b, i, em, strong, a, p and br with href, target and rel", () => {
    const html =
      '<p><b>b</b><i>i</i><em>em</em><strong>strong</strong><br>' +
      '<a href="https://docs.example.com/agents" target="_blank" rel="noopener noreferrer">docs</a></p>';
    expect(sanitizeHtml(html)).toBe(html);
  });

  it("unwraps other tags and drops other attributes", () => {
    expect(sanitizeHtml('<div class="x" id="y"><span title="t">kept text</span></div>')).toBe("kept text");
    expect(sanitizeHtml('<a href="/billing" data-x="1" class="c">Billing</a>')).toBe('<a href="/billing">Billing</a>');
  });

  it("leaves plain text alone", () => {
    expect(sanitizeHtml("Manage calendar and appointments")).toBe("Manage calendar and appointments");
  });
});

describe("SafeHtml, which renders the sidebar's tooltips", () => {
  it("renders the allowed markup and nothing else", () => {
    const { container } = render(
      <SafeHtml html={'Manage <b>billing</b> <a href="javascript:alert(1)" onclick="x()">here</a><img src=x onerror="x()">'} />,
    );
    expect(screen.getByText("billing").tagName).toBe("B");
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("a")?.getAttribute("href")).toBeNull();
    expect(container.innerHTML).not.toMatch(/onclick|onerror|javascript/i);
  });
});
