/**
 * A sequence diagram of one client run, as inline SVG drawn here (no library, no script): three
 * lanes — the client under test, the gateway (the resource server, and the authorization server
 * a bridging gateway fronts), the IdP — and one row per recorded request, the request's arrow
 * labelled with its order, method and path and the answer's dashed arrow with its status. The
 * steps a failure's evidence shows are highlighted and name the requirements they break; the
 * client's exit closes the diagram. Every label is escaped here (escape.ts); the steps arrive
 * redacted (steps.ts).
 */
import type { Level } from '../../types.js'
import { clip, escapeHtml } from './escape.js'

/** A lane a request went to: the recorder in front of the gateway, or the one in front of the IdP. */
export type StepLane = 'gateway' | 'idp'

/** A requirement a step (or the run's end) is the evidence of a failure of. */
export interface StepMark {
  id: string
  level: Level
  /** Listed in the baseline: an expected failure, drawn amber instead of red. */
  expected?: boolean
}

/** One request of the client and its answer, redacted. */
export interface DiagramStep {
  /** Arrival order, from 1. */
  seq: number
  to: StepLane
  method: string
  /** Path and query, redacted. */
  path: string
  /** What the request is, briefly: a JSON-RPC method, the credential scheme it carried. */
  detail?: string
  /** 0 when no answer was given. */
  status: number
  /** What the recorder reshaped or answered itself, in words. */
  note?: string
  /** The failures whose evidence this step is. */
  marks: readonly StepMark[]
}

/** How the run ended, drawn under the last step on the client's lane. */
export interface DiagramEnd {
  /** e.g. `exit 1 after 2.3 s`, `timed out after 30 s`. */
  text: string
  /** Failures judged on the run's end rather than on one request (e.g. the exit code). */
  marks: readonly StepMark[]
}

/** What the diagram shows. */
export interface SequenceDiagram {
  /** Names the diagram for assistive technology (`<title>`). */
  title: string
  /** The origins the lanes stand for (shown under their names). */
  origins: { gateway?: string; idp?: string }
  steps: readonly DiagramStep[]
  end?: DiagramEnd
}

const WIDTH = 960
const LANE_X = { client: 110, gateway: 480, idp: 850 } as const
const HEAD_H = 52
const TOP = HEAD_H + 24
const ROW_H = 48
const END_H = 56
/** Monospace 11px: about 6.7 px a character. */
const CHAR_W = 6.7

const attr = escapeHtml

function statusClass(status: number): string {
  if (status === 0) return 'st-none'
  if (status < 300) return 'st-ok'
  if (status < 400) return 'st-redirect'
  return 'st-error'
}

/** `failing` (red) when a mark is not in the baseline, `expected` (amber) when all are. */
function markClass(marks: readonly StepMark[]): string {
  if (marks.length === 0) return ''
  return marks.some((m) => !m.expected) ? ' failing' : ' expected'
}

const markText = (marks: readonly StepMark[]) =>
  marks.map((m) => `✗ ${m.id} ${m.level}${m.expected ? ' (baseline)' : ''}`).join('  ')

function arrowHead(x: number, y: number, dir: 1 | -1): string {
  return `<polygon class="head" points="${x},${y} ${x - 9 * dir},${y - 4.5} ${x - 9 * dir},${y + 4.5}"/>`
}

function laneHead(x: number, name: string, origin: string | undefined): string {
  return [
    `<rect class="lane-head" x="${x - 100}" y="8" width="200" height="${HEAD_H - 8}" rx="6"/>`,
    `<text class="lane-name" x="${x}" y="27" text-anchor="middle">${escapeHtml(name)}</text>`,
    origin
      ? `<text class="lane-origin" x="${x}" y="44" text-anchor="middle">${escapeHtml(clip(origin, 30))}</text>`
      : '',
  ].join('')
}

function stepRow(step: DiagramStep, y: number): string {
  const from = LANE_X.client
  const to = LANE_X[step.to]
  const ask = y + 18
  const answer = y + 38
  const room = Math.floor((to - from - 24) / CHAR_W)
  const label = `${step.method} ${step.path}${step.detail ? `  ${step.detail}` : ''}`
  const status = step.status === 0 ? 'no answer' : String(step.status)
  const full = `#${step.seq} ${label} → ${status}${step.note ? ` (${step.note})` : ''}${
    step.marks.length ? ` — ${markText(step.marks)}` : ''
  }`
  const cls = `step ${statusClass(step.status)}${markClass(step.marks)}`
  return [
    `<g class="${cls}" data-seq="${step.seq}" data-lane="${step.to}"${
      step.marks.length ? ` data-failing="${attr(step.marks.map((m) => m.id).join(' '))}"` : ''
    }>`,
    `<title>${escapeHtml(full)}</title>`,
    step.marks.length
      ? `<rect class="highlight" x="4" y="${y + 1}" width="${WIDTH - 8}" height="${ROW_H - 2}" rx="4"/>`
      : '',
    `<text class="seq" x="14" y="${ask + 4}">#${step.seq}</text>`,
    `<text class="label" x="${from + 10}" y="${ask - 5}">${escapeHtml(clip(label, room))}</text>`,
    `<line class="ask" x1="${from}" y1="${ask}" x2="${to - 1}" y2="${ask}"/>`,
    arrowHead(to, ask, 1),
    `<line class="answer" x1="${to}" y1="${answer}" x2="${from + 1}" y2="${answer}"/>`,
    arrowHead(from, answer, -1),
    `<text class="status" x="${to - 10}" y="${answer - 5}" text-anchor="end">${escapeHtml(
      clip(step.note ? `${status} · ${step.note}` : status, room),
    )}</text>`,
    step.marks.length
      ? `<text class="marks" x="${from + 10}" y="${answer - 5}">${escapeHtml(
          clip(markText(step.marks), Math.floor(room / 2)),
        )}</text>`
      : '',
    '</g>',
  ].join('')
}

function endRow(end: DiagramEnd, y: number): string {
  const x = LANE_X.client
  const text = clip(end.text, 44)
  const w = Math.max(120, text.length * CHAR_W + 24)
  return [
    `<g class="end${markClass(end.marks)}"${
      end.marks.length ? ` data-failing="${attr(end.marks.map((m) => m.id).join(' '))}"` : ''
    }>`,
    `<title>${escapeHtml(`${end.text}${end.marks.length ? ` — ${markText(end.marks)}` : ''}`)}</title>`,
    end.marks.length
      ? `<rect class="highlight" x="4" y="${y + 1}" width="${WIDTH - 8}" height="${END_H - 6}" rx="4"/>`
      : '',
    `<rect class="end-box" x="${Math.max(8, x - w / 2)}" y="${y + 10}" width="${w}" height="26" rx="13"/>`,
    `<text class="end-text" x="${Math.max(8, x - w / 2) + w / 2}" y="${y + 27}" text-anchor="middle">${escapeHtml(text)}</text>`,
    end.marks.length
      ? `<text class="marks" x="${x + w / 2 + 12}" y="${y + 27}">${escapeHtml(clip(markText(end.marks), 100))}</text>`
      : '',
    '</g>',
  ].join('')
}

/** The diagram as an `<svg>` element, to be placed inline in the page. */
export function sequenceSvg(d: SequenceDiagram): string {
  const rows = Math.max(1, d.steps.length)
  const height = TOP + rows * ROW_H + (d.end ? END_H : 0) + 8
  const bottom = height - 8
  const lifelines = Object.values(LANE_X)
    .map((x) => `<line class="lifeline" x1="${x}" y1="${HEAD_H}" x2="${x}" y2="${bottom}"/>`)
    .join('')
  const body =
    d.steps.length === 0
      ? `<text class="empty" x="${LANE_X.client + 12}" y="${TOP + 28}">the client sent no request</text>`
      : d.steps.map((s, i) => stepRow(s, TOP + i * ROW_H)).join('')
  return [
    `<svg class="sequence" xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}">`,
    `<title>${escapeHtml(d.title)}</title>`,
    lifelines,
    laneHead(LANE_X.client, 'client under test', undefined),
    laneHead(LANE_X.gateway, 'gateway / resource server', d.origins.gateway),
    laneHead(LANE_X.idp, 'authorization server / IdP', d.origins.idp),
    body,
    d.end ? endRow(d.end, TOP + rows * ROW_H) : '',
    '</svg>',
  ].join('')
}
