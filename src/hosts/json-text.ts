/**
 * Edits of JSON text that leave every other byte as it was (formatting, 20-digit integers,
 * duplicate keys): jsonc-parser gives the offsets; only the inserted value is formatted, with
 * its new siblings' indentation. A key step picks the key's last occurrence, as `JSON.parse` does.
 */
import { parseTree, type Node } from 'jsonc-parser';
import { eolOf } from '../util/text.js';

export type JsonPath = readonly (string | number)[];

function nodeAt(root: Node | undefined, path: JsonPath): Node | undefined {
  let node = root;
  for (const step of path) {
    if (node === undefined) return undefined;
    if (typeof step === 'number') {
      node = node.type === 'array' ? node.children?.[step] : undefined;
      continue;
    }
    if (node.type !== 'object') return undefined;
    const property = node.children?.findLast((child) => child.children?.[0]?.value === step);
    node = property?.children?.[1];
  }
  return node;
}

function tree(text: string): Node | undefined {
  return parseTree(text, [], { disallowComments: true, allowTrailingComma: false });
}

function lineIndent(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** Whether `node` starts its own line (only whitespace before it on that line). */
function ownLine(text: string, node: Node): boolean {
  const lineStart = text.lastIndexOf('\n', node.offset - 1) + 1;
  return text.slice(lineStart, node.offset).trim() === '';
}

/** `value` as JSON whose lines after the first are indented by `base`. */
function formatValue(value: unknown, indent: string, base: string, eol: string): string {
  return JSON.stringify(value, null, indent).replaceAll('\n', `${eol}${base}`);
}

function splice(text: string, start: number, end: number, insert: string): string {
  return text.slice(0, start) + insert + text.slice(end);
}

/** Appends `value` to a container (an array element, or an object property `key`), on a line of its own or inline, as its siblings are. */
function appendTo(text: string, container: Node, value: unknown, indent: string, key?: string): string {
  const children = container.children ?? [];
  const eol = eolOf(text);
  const item = (base: string) => (key === undefined ? '' : `${JSON.stringify(key)}: `) + formatValue(value, indent, base, eol);
  const last = children.at(-1);
  if (last === undefined) {
    const base = lineIndent(text, container.offset);
    const inner = `${base}${indent}`;
    return splice(
      text,
      container.offset,
      container.offset + container.length,
      `${container.type === 'array' ? '[' : '{'}${eol}${inner}${item(inner)}${eol}${base}${container.type === 'array' ? ']' : '}'}`,
    );
  }
  const end = last.offset + last.length;
  if (!ownLine(text, last)) return splice(text, end, end, `, ${key === undefined ? '' : `${JSON.stringify(key)}: `}${JSON.stringify(value)}`);
  const base = lineIndent(text, last.offset);
  return splice(text, end, end, `,${eol}${base}${item(base)}`);
}

/** Removes `child` of `container` and the comma and whitespace before it: removing what {@link appendTo} added gives back the bytes from before. */
function removeChild(text: string, container: Node, child: Node): string {
  const children = container.children ?? [];
  const index = children.indexOf(child);
  if (index < 0) return text;
  if (children.length === 1) return splice(text, container.offset, container.offset + container.length, container.type === 'array' ? '[]' : '{}');
  if (index > 0) {
    const previous = children[index - 1]!;
    return splice(text, previous.offset + previous.length, child.offset + child.length, '');
  }
  return splice(text, child.offset, children[1]!.offset, '');
}

/**
 * `text` with `value` at `path`: the value there replaced, else added to the deepest container on
 * the path, wrapped in the containers missing below it (a last step of -1 appends to an array).
 */
export function setAt(text: string, path: JsonPath, value: unknown, indent: string): string {
  const root = tree(text)!;
  const node = nodeAt(root, path);
  if (node !== undefined) return splice(text, node.offset, node.offset + node.length, formatValue(value, indent, lineIndent(text, node.offset), eolOf(text)));
  let depth = path.length - 1;
  while (nodeAt(root, path.slice(0, depth)) === undefined) depth--;
  const wrapped = path.slice(depth + 1).reduceRight((inner: unknown, step) => (step === -1 ? [inner] : { [step]: inner }), value);
  const key = path[depth];
  return appendTo(text, nodeAt(root, path.slice(0, depth))!, wrapped, indent, typeof key === 'string' ? key : undefined);
}

/** `text` without the first of `paths` (deepest first) whose container holds something else too; the last is removed whatever its container holds. */
export function removeFirstOf(text: string, paths: readonly JsonPath[]): string {
  const root = tree(text)!;
  const path = paths.find((candidate, i) => i === paths.length - 1 || nodeAt(root, candidate.slice(0, -1))!.children!.length > 1)!;
  const node = nodeAt(root, path)!;
  // An object's children are its properties: the one that holds the value goes.
  return removeChild(text, nodeAt(root, path.slice(0, -1))!, node.parent?.type === 'property' ? node.parent : node);
}
