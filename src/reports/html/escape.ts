// Escaping for matrix.html. Everything a server wrote (messages, stderr, handle locations, names) is
// hostile: it reaches the page only through `text`, and element ids only through `anchor`.

import { cleanText } from '../view/format.js';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text for element content: control codes removed, `& < >` escaped. Quotes mean nothing there, and a 48-variant
 * page of failures holds thousands of them (JSON details, messages): left as they are, the page stays under 1 MB.
 */
export function text(value: string): string {
  return cleanText(value).replace(/[&<>]/g, (c) => ENTITIES[c] ?? c);
}

/** A quoted attribute value: control codes removed, `& < > " '` escaped. */
export function attr(value: string): string {
  return cleanText(value).replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/**
 * An element id (and URL fragment) for any string, one to one: letters, digits, `.`, `-` and `~` stay,
 * every other character becomes `_<hex>_`, so ids from a config can neither clash nor break out of an attribute.
 */
export function anchor(value: string): string {
  return value.replace(/[^A-Za-z0-9.~-]/gu, (c) => `_${c.codePointAt(0)!.toString(16)}_`);
}

/** `<tag attrs>children</tag>`: attribute values escaped here, children already HTML. */
export function el(tag: string, attrs: Record<string, string | number | boolean | undefined>, ...children: string[]): string {
  const list = Object.entries(attrs)
    .filter(([, v]) => v !== undefined && v !== false)
    .map(([k, v]) => (v === true ? ` ${k}` : ` ${k}="${attr(String(v))}"`))
    .join('');
  return `<${tag}${list}>${children.join('')}</${tag}>`;
}
