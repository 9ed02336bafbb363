import { test } from "node:test";
import assert from "node:assert/strict";
import { shortcut } from "../../web/src/components/shortcut.ts";

/**
 * Shortcuts work on an Arabic keyboard: the same physical keys that type a, j, 0 and = on a US layout type ش, ت, ٠
 * (or 0) and = on the Arabic (101) and Mac Arabic layouts, and each still means its shortcut. A Latin layout whose
 * keys sit elsewhere (AZERTY's a is QWERTY's q) keeps what its labels say.
 */
test("a key press on an Arabic layout means the shortcut of the physical key", () => {
  const arabic: [key: string, code: string, means: string][] = [
    ["ش", "KeyA", "a"],
    ["ق", "KeyR", "r"],
    ["ت", "KeyJ", "j"],
    ["ن", "KeyK", "k"],
    ["ة", "KeyM", "m"],
    ["ئ", "KeyZ", "z"],
    ["٠", "Digit0", "0"],
    ["٠", "Numpad0", "0"],
    ["Unidentified", "NumpadAdd", "+"],
    ["Unidentified", "Minus", "-"],
  ];
  for (const [key, code, means] of arabic) assert.equal(shortcut({ key, code }), means, `${key} on ${code}`);
});

test("on a Latin layout the character typed decides; named keys stay as they are", () => {
  assert.equal(shortcut({ key: "a", code: "KeyQ" }), "a", "AZERTY a");
  assert.equal(shortcut({ key: "A", code: "KeyA" }), "a", "with Shift");
  assert.equal(shortcut({ key: "=", code: "Equal" }), "=");
  assert.equal(shortcut({ key: "+", code: "Equal" }), "+");
  assert.equal(shortcut({ key: "0", code: "Digit0" }), "0");
  assert.equal(shortcut({ key: " ", code: "Space" }), " ");
  assert.equal(shortcut({ key: "ArrowLeft", code: "ArrowLeft" }), "ArrowLeft");
  assert.equal(shortcut({ key: "PageDown", code: "PageDown" }), "PageDown");
  // A key that is neither a Latin character nor a known code means nothing in particular: no shortcut fires.
  assert.equal(shortcut({ key: "ـ", code: "IntlBackslash" }), "ـ");
});
