import { XMLParser, XMLValidator } from 'fast-xml-parser';

// The XML reports (JUnit, Catch2's and doctest's own) through one parser: fast-xml-parser, a kept library,
// rather than a scanner of our own, because these files carry entities, CDATA and multi-line text.

// An element: its attributes as strings, its children as arrays by tag, its text under '#text'.
export interface XmlNode {
  [key: string]: string | (XmlNode | string)[] | undefined;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  // Numeric character references (GoogleTest writes newlines in attributes as &#x0A;).
  htmlEntities: true,
  // Every element is a list, so one case and many read the same way.
  isArray: (_name, _path, _leaf, isAttribute) => !isAttribute,
});

// The document's root elements by tag; null when the text is not well-formed XML (a report cut short by
// a crash is no report).
export function parseXml(text: string): XmlNode | null {
  if (XMLValidator.validate(text) !== true) return null;
  return parser.parse(text) as XmlNode;
}

// The child elements of a node with this tag (none: an empty list); a text-only child reads as {'#text'}.
export function kids(node: XmlNode | undefined, tag: string): XmlNode[] {
  const v = node?.[tag];
  return Array.isArray(v) ? v.map((c) => (typeof c === 'string' ? { '#text': c } : c)) : [];
}

// An attribute (or the element's text for '#text'); undefined when absent.
export function attr(node: XmlNode | undefined, name: string): string | undefined {
  const v = node?.[name];
  return typeof v === 'string' ? v : undefined;
}

// An element's own text ('' when it has none).
export function text(node: XmlNode | undefined): string {
  return attr(node, '#text') ?? '';
}

// Every element with this tag at any depth under node (sections nest in Catch2's XML).
export function descendants(node: XmlNode, tag: string): XmlNode[] {
  const out: XmlNode[] = [];
  for (const [k, v] of Object.entries(node)) {
    if (!Array.isArray(v)) continue;
    for (const child of v) {
      if (typeof child !== 'object' || child === null) continue;
      if (k === tag) out.push(child);
      out.push(...descendants(child, tag));
    }
  }
  return out;
}
