/**
 * A fast path for reading configuration YAML: js-yaml's event parser, taken only for input it
 * reads exactly as the `yaml` library does (`./yaml.ts`), and declined for everything else.
 *
 * Why: the `yaml` library builds a concrete syntax tree and then a document of the whole file
 * before it makes the value; for a 2.4 MB, 10,000-route file that is 4–6 s of CPU, half of it the
 * garbage collector, where js-yaml's events take well under 1 s (bench/RESULTS.md, "large
 * reloads"; docs/reliability.md, "Large configurations").
 *
 * Exactness: the value is taken only when the text has none of what the two parsers could read
 * differently — `${ENV}` (substituted on `yaml`'s scalars, `./env.ts`), anchors, aliases, tags,
 * directives, merge keys (`<<`), a key that is not a string, `__proto__`, a key written twice —
 * and every plain scalar is resolved here, by the YAML 1.2 core schema exactly as `yaml` 2
 * resolves it (null, bool, decimal int, float), never by js-yaml's own rules: `yes`, `on`, `0777`
 * written plain are what `yaml` makes of them, and the rarer core forms (hex, `0o` octal, `.inf`,
 * `.nan`) decline. Any error of js-yaml declines too: every error message still comes from `yaml`
 * (kind, line, column; never content), and every line number of a later issue from a `yaml`
 * document parsed when it is asked for (`./kubernetes/documents.ts`).
 */
import {
  constructFromEvents,
  defineMappingTag,
  defineScalarTag,
  EVENT_ID,
  type Event,
  parseEvents,
  Schema,
  seqTag,
  strTag,
} from 'js-yaml'

/** Thrown inside the fast path when the input is not one it takes. */
class Declined extends Error {}

const decline = (why: string): never => {
  throw new Declined(why)
}

/**
 * A plain scalar's value by the YAML 1.2 core schema as `yaml` 2 resolves it
 * (`yaml/dist/schema/core`): null, bool, decimal int (`parseInt`), float (`parseFloat`), else the
 * string. Forms this path does not take (hex, `0o` octal, infinity, not-a-number, `<<`) decline.
 */
export function corePlainValue(text: string): unknown {
  if (/^(?:~|[Nn]ull|NULL)?$/.test(text)) return null
  if (/^(?:[Tt]rue|TRUE)$/.test(text)) return true
  if (/^(?:[Ff]alse|FALSE)$/.test(text)) return false
  if (/^[-+]?[0-9]+$/.test(text)) return Number.parseInt(text, 10)
  if (
    /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/.test(text) ||
    /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/.test(text)
  )
    return Number.parseFloat(text)
  if (
    /^0o[0-7]+$/.test(text) ||
    /^0x[0-9a-fA-F]+$/.test(text) ||
    /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(text) ||
    text === '<<'
  )
    return decline('a core-schema form this path does not take')
  return text
}

/** Every plain scalar, resolved by {@link corePlainValue} (js-yaml's own resolvers not used). */
const plainTag = defineScalarTag('tag:gatehouse.dev,2026:plain', {
  implicit: true,
  implicitFirstChars: null,
  resolve: (source) => corePlainValue(source),
  identify: () => false,
})

/** Mappings as plain objects of string keys, each written once; anything else declines. */
const mapTag = defineMappingTag<Record<string, unknown>>('tag:yaml.org,2002:map', {
  create: () => ({}),
  addPair: (map, key, value) => {
    if (typeof key !== 'string') return 'a key that is not a string'
    if (key === '__proto__') return 'a __proto__ key'
    map[key] = value
    return ''
  },
  has: (map, key) => typeof key === 'string' && Object.hasOwn(map, key),
  keys: (map) => Object.keys(map),
  get: (map, key) => map[key as string],
  identify: () => false,
})

const SCHEMA = new Schema([strTag, seqTag, mapTag, plainTag])

/** The longest implicit key `yaml` accepts is 1024 characters (YAML 1.2 §7.4.2); a margin below it. */
const LONGEST_KEY = 1000

/**
 * Whether any event carries what this path does not take: an anchor, an alias, a tag, a
 * directive, or a mapping key that `yaml` may refuse and js-yaml reads (longer than
 * {@link LONGEST_KEY}, or over more than one line).
 */
function hasUntaken(events: readonly Event[], text: string): boolean {
  // For each open collection: whether it is a mapping, and how many children it has had.
  const open: { map: boolean; children: number }[] = []
  for (const e of events) {
    if (e.type === EVENT_ID.POP) {
      open.pop()
      continue
    }
    if (e.type === EVENT_ID.DOCUMENT) {
      if (e.directives.length > 0) return true
      open.push({ map: false, children: 0 })
      continue
    }
    if (e.type === EVENT_ID.ALIAS || e.anchorStart !== -1 || e.tagStart !== -1) return true
    const parent = open.at(-1)
    const isKey = parent?.map === true && parent.children % 2 === 0
    if (parent) parent.children++
    if (e.type === EVENT_ID.SCALAR) {
      if (isKey) {
        if (e.valueEnd - e.valueStart > LONGEST_KEY) return true
        if (text.slice(e.valueStart, e.valueEnd).includes('\n')) return true
      }
    } else open.push({ map: e.type === EVENT_ID.MAPPING, children: 0 })
  }
  return false
}

/**
 * The values of the documents of `text` (one per document, empty ones `null`), exactly as `yaml`
 * would make them, or `undefined` when this path declines the text (see the module comment): the
 * caller then parses it with `yaml`, which also words every error.
 */
export function fastDocumentValues(text: string): unknown[] | undefined {
  if (text.includes('${')) return undefined
  try {
    const events = parseEvents(text, {})
    if (hasUntaken(events, text)) return undefined
    return constructFromEvents(events, { source: text, schema: SCHEMA, maxAliases: 0 })
  } catch {
    // A js-yaml error (syntax, duplicate key, depth) or a declined form: `yaml` reads it instead.
    return undefined
  }
}
