import type { Page } from "playwright-core";
import { waitForExpression } from "./browser.ts";

/** What the search end-to-end tests share (not a test file itself). */

/**
 * Types into the search box key by key and measures, in the page, the time from the last keystroke to the
 * frame after the results of exactly that text are in place (the pause before asking the server included).
 */
export async function typeQuery(page: Page, q: string): Promise<number> {
  // From an empty box whose results are in place, so the results awaited below can only be the new ones.
  await page.locator("#search-q").fill("");
  await waitForExpression(page, `document.querySelector("[data-testid=search-results]")?.dataset.q === "" && document.querySelector("[data-testid=search-results]")?.getAttribute("aria-busy") === "false"`, 60_000);
  await page.evaluate(`(() => {
    const box = document.querySelector("#search-q");
    window.__lastInput = 0;
    box.addEventListener("input", () => { window.__lastInput = performance.now(); });
    window.__painted = new Promise((done) => {
      const check = () => {
        const r = document.querySelector("[data-testid=search-results]");
        if (r && r.dataset.q === ${JSON.stringify(q)} && r.getAttribute("aria-busy") === "false") requestAnimationFrame(() => done(performance.now()));
        else requestAnimationFrame(check);
      };
      requestAnimationFrame(check);
    });
  })()`);
  await page.locator("#search-q").pressSequentially(q, { delay: 40 });
  return Math.round((await page.evaluate("window.__painted.then((t) => t - window.__lastInput)")) as number);
}
