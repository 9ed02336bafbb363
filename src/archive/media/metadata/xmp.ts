/** XMP: a small XML reader (no entities beyond the five, bounded depth and nodes) and the RDF walk to JSON. */
import { Collector, MAX_XML_DEPTH, MAX_XML_NODES, MAX_XMP_CHARS, type Obj } from "./text.ts";

export interface XmlNode {
  name: string;
  attrs: [string, string][];
  children: XmlNode[];
  text: string;
}

export const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

export function decodeEntities(s: string): string {
  if (!s.includes("&")) return s;
  return s.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,4});/g, (all, e: string) => {
    if (e[0] === "#") {
      const cp = e[1] === "x" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : "\uFFFD";
    }
    return ENTITIES[e] ?? all;
  });
}

/**
 * A small XML reader for XMP packets: linear time (every index only moves forward), bounded depth and node
 * count, no DTDs or external entities. Returns the root's children, or a reason it refused.
 */
export function parseXml(s: string): XmlNode[] | string {
  const root: XmlNode = { name: "#root", attrs: [], children: [], text: "" };
  const stack: XmlNode[] = [root];
  let i = 0;
  let nodes = 0;
  while (i < s.length) {
    const lt = s.indexOf("<", i);
    const top = stack[stack.length - 1]!;
    if (lt < 0) {
      top.text += decodeEntities(s.slice(i));
      break;
    }
    if (lt > i) top.text += decodeEntities(s.slice(i, lt));
    if (s.startsWith("<!--", lt)) {
      const end = s.indexOf("-->", lt + 4);
      if (end < 0) return "an unclosed comment";
      i = end + 3;
      continue;
    }
    if (s.startsWith("<?", lt)) {
      const end = s.indexOf("?>", lt + 2);
      if (end < 0) return "an unclosed processing instruction";
      i = end + 2;
      continue;
    }
    if (s.startsWith("<![CDATA[", lt)) {
      const end = s.indexOf("]]>", lt + 9);
      if (end < 0) return "an unclosed CDATA section";
      top.text += s.slice(lt + 9, end);
      i = end + 3;
      continue;
    }
    if (s.startsWith("<!", lt)) return "a document type declaration, which XMP does not allow";
    // A tag: find its closing '>' outside quoted attribute values.
    let j = lt + 1;
    let quote = "";
    for (; j < s.length; j++) {
      const c = s[j]!;
      if (quote) {
        if (c === quote) quote = "";
      } else if (c === '"' || c === "'") quote = c;
      else if (c === ">") break;
      else if (c === "<") return `a "<" inside a tag at character ${j}`;
    }
    if (j >= s.length) return "a tag that never closes";
    const body = s.slice(lt + 1, j);
    i = j + 1;
    if (body[0] === "/") {
      const name = body.slice(1).trim();
      if (stack.length === 1 || top.name !== name) return `a closing </${name.slice(0, 40)}> that does not match its opening tag`;
      stack.pop();
      continue;
    }
    const selfClosing = body.endsWith("/");
    const inner = selfClosing ? body.slice(0, -1) : body;
    const nm = /^[^\s/>]+/.exec(inner);
    if (!nm) return `an empty tag at character ${lt}`;
    const node: XmlNode = { name: nm[0], attrs: [], children: [], text: "" };
    const attrRe = /\s*([^\s=]+)\s*=\s*("([^"]*)"|'([^']*)')/y;
    let k = nm[0].length;
    while (k < inner.length) {
      attrRe.lastIndex = k;
      const a = attrRe.exec(inner);
      if (!a) {
        if (inner.slice(k).trim() === "") break;
        return `a malformed attribute in <${node.name.slice(0, 40)}>`;
      }
      node.attrs.push([a[1]!, decodeEntities(a[3] ?? a[4] ?? "")]);
      k = attrRe.lastIndex;
    }
    if (++nodes > MAX_XML_NODES) return `more than ${MAX_XML_NODES} elements`;
    top.children.push(node);
    if (!selfClosing) {
      stack.push(node);
      if (stack.length > MAX_XML_DEPTH) return `elements nested more than ${MAX_XML_DEPTH} deep`;
    }
  }
  if (stack.length > 1) return `an unclosed <${stack[stack.length - 1]!.name.slice(0, 40)}>`;
  return root.children;
}

export function splitName(qname: string): [prefix: string, local: string] {
  const c = qname.indexOf(":");
  return c < 0 ? ["", qname] : [qname.slice(0, c), qname.slice(c + 1)];
}

export function isRdf(n: XmlNode, local: string): boolean {
  return n.name === `rdf:${local}`;
}

export function attr(n: XmlNode, name: string): string | undefined {
  return n.attrs.find(([k]) => k === name)?.[1];
}

/** Attributes that are properties (not rdf:, xml:, xmlns). */
export function propertyAttrs(n: XmlNode): [string, string][] {
  return n.attrs.filter(([k]) => !k.startsWith("rdf:") && !k.startsWith("xml:") && k !== "xmlns" && !k.startsWith("xmlns:"));
}

export function elementChildren(n: XmlNode): XmlNode[] {
  return n.children;
}

/** Sets a key on a null-prototype object; the first value for a name wins. */
export function put(o: Obj, key: string, value: unknown): void {
  if (!Object.prototype.hasOwnProperty.call(o, key)) Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

export function structOf(n: XmlNode): Obj {
  const o = Object.create(null) as Obj;
  for (const [k, v] of propertyAttrs(n)) put(o, k, v);
  for (const c of elementChildren(n)) {
    if (isRdf(c, "Description")) {
      const inner = structOf(c);
      for (const k of Object.keys(inner)) put(o, k, inner[k]);
    } else put(o, c.name, xmpValue(c, 0));
  }
  return o;
}

export function xmpValue(n: XmlNode, depth: number): unknown {
  if (depth > MAX_XML_DEPTH) return undefined;
  const resource = attr(n, "rdf:resource");
  if (resource !== undefined) return resource;
  if (attr(n, "rdf:parseType") === "Resource") return structOf(n);
  const kids = elementChildren(n);
  if (kids.length === 1 && (isRdf(kids[0]!, "Seq") || isRdf(kids[0]!, "Bag") || isRdf(kids[0]!, "Alt"))) {
    const list = kids[0]!;
    const items = elementChildren(list).filter((c) => isRdf(c, "li"));
    if (isRdf(list, "Alt") && items.length > 0 && items.every((li) => attr(li, "xml:lang") !== undefined)) {
      const o = Object.create(null) as Obj;
      for (const li of items) put(o, attr(li, "xml:lang")!, xmpValue(li, depth + 1));
      return o;
    }
    return items.map((li) => xmpValue(li, depth + 1));
  }
  if (kids.length > 0 || propertyAttrs(n).length > 0) {
    const value = attr(n, "rdf:value");
    const o = structOf(n);
    if (value !== undefined) put(o, "value", value);
    return o;
  }
  return n.text;
}

export function findAll(nodes: XmlNode[], pred: (n: XmlNode) => boolean, out: XmlNode[] = [], depth = 0): XmlNode[] {
  if (depth > MAX_XML_DEPTH) return out;
  for (const n of nodes) {
    if (pred(n)) out.push(n);
    else findAll(n.children, pred, out, depth + 1);
  }
  return out;
}

/** XMP as { prefix: { name: value } } with values as written (strings stay strings), plus the namespaces. */
export function parseXmp(text: string, p: Collector): { xmp?: Obj; namespaces?: Obj } {
  if (text.length > MAX_XMP_CHARS) {
    p.add(`The XMP packet is ${text.length} characters long; only packets up to ${MAX_XMP_CHARS} are parsed (it is kept raw).`);
    return {};
  }
  const tree = parseXml(text);
  if (typeof tree === "string") {
    p.add(`The XMP packet is not well-formed XML (${tree}); it is kept raw, not parsed.`);
    return {};
  }
  const namespaces = Object.create(null) as Obj;
  const visit = (ns: XmlNode[], depth: number) => {
    if (depth > MAX_XML_DEPTH) return;
    for (const n of ns) {
      for (const [k, v] of n.attrs) if (k.startsWith("xmlns:")) put(namespaces, k.slice(6), v);
      visit(n.children, depth + 1);
    }
  };
  visit(tree, 0);
  const rdf = findAll(tree, (n) => isRdf(n, "RDF"));
  if (rdf.length === 0) {
    p.add("The XMP packet has no rdf:RDF element; it is kept raw, not parsed.");
    return { namespaces };
  }
  const xmp = Object.create(null) as Obj;
  const add = (qname: string, value: unknown) => {
    if (value === undefined) return;
    const [prefix, local] = splitName(qname);
    const bucketKey = prefix || "_";
    let bucket = Object.prototype.hasOwnProperty.call(xmp, bucketKey) ? (xmp[bucketKey] as Obj) : undefined;
    if (!bucket) {
      bucket = Object.create(null) as Obj;
      put(xmp, bucketKey, bucket);
    }
    put(bucket, local, value);
  };
  const meta = findAll(tree, (n) => n.name === "x:xmpmeta" || n.name === "x:xapmeta")[0];
  const toolkit = meta ? attr(meta, "x:xmptk") ?? attr(meta, "x:xaptk") : undefined;
  if (toolkit !== undefined) add("x:xmptk", toolkit);
  for (const r of rdf) {
    for (const d of r.children.filter((c) => isRdf(c, "Description"))) {
      for (const [k, v] of propertyAttrs(d)) add(k, v);
      for (const c of d.children) add(c.name, xmpValue(c, 0));
    }
  }
  return { xmp, namespaces };
}
