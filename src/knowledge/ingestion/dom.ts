import { parseHTML } from 'linkedom';

/** The part of the DOM that extraction and link discovery use, typed here once for linkedom. */
export interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
  parentNode: DomNode | null;
  innerHTML: string;
  getAttribute(name: string): string | null;
  querySelector(selector: string): DomNode | null;
  querySelectorAll(selector: string): ArrayLike<DomNode>;
}

export interface DomDocument extends DomNode {
  body: DomNode | null;
}

// linkedom's own declarations lean on the DOM library, which this Node project does not load.
const parse = parseHTML as unknown as (html: string) => { document: DomDocument };

/** A server-side DOM of an HTML string, for Readability and for walking. */
export function parseDocument(html: string): DomDocument {
  return parse(html).document;
}
