/**
 * The shortcut a key press means, whatever the keyboard layout. On a Latin layout the character the key types is
 * the shortcut (an AZERTY user's `a` is where the label says, not where QWERTY's is). On an Arabic layout the same
 * keys type ش, ق, ٠…, so the physical key (`event.code`) decides instead: KeyA is `a`, Digit0 is `0`, Equal is
 * `=`. Shortcuts are then written once, as the Latin character, and work in both languages.
 */
const CODES: Record<string, string> = {
  Equal: "=",
  Minus: "-",
  NumpadAdd: "+",
  NumpadSubtract: "-",
  Space: " ",
};

export function shortcut(e: { key: string; code: string }): string {
  // One printable ASCII character: the layout is Latin enough to trust what the key says.
  if (/^[\x20-\x7e]$/.test(e.key)) return e.key.toLowerCase();
  const letter = /^Key([A-Z])$/.exec(e.code);
  if (letter) return letter[1]!.toLowerCase();
  const digit = /^(?:Digit|Numpad)([0-9])$/.exec(e.code);
  if (digit) return digit[1]!;
  // Named keys (ArrowLeft, PageDown, Home…) are the same on every layout.
  return CODES[e.code] ?? e.key;
}
