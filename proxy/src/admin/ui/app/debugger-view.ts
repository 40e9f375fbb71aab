/**
 * The OAuth flow debugger page: pick an MCP endpoint of this proxy, then watch the flow of
 * ./oauth-flow.ts step by step — each request and response (credentials redacted with the shared
 * `@gatehouse/redact`), what the spec expects and whether it holds. The sign-in opens in a new tab
 * from a link the person follows; the authorization server sends the browser back to this admin's
 * `/ui/callback`, which hands the answer over a BroadcastChannel. Tokens stay in page memory.
 */
import { redactHeaderValue, redactText } from '@gatehouse/redact'
import { getJson, type PageInfo, relayed } from './api.js'
import { badge, h, render } from './dom.js'
import {
  type Check,
  type Exchange,
  OAuthFlow,
  type RelayAnswer,
  type RelayAsk,
  type Step,
} from './oauth-flow.js'
import type { StatusDocument } from './status-view.js'

/** The channel the callback page answers on. */
export const CALLBACK_CHANNEL = 'gatehouse-oauth-debugger'

/** The MCP endpoints the configuration names: policies' resources first, then route prefixes. */
export function mcpEndpoints(doc: StatusDocument): string[] {
  const urls: string[] = []
  for (const p of doc.policies) {
    const traffic = (
      p as {
        traffic?: { jwtAuthentication?: { mcp?: { resourceMetadata?: { resource?: string } } } }
      }
    ).traffic
    const resource = traffic?.jwtAuthentication?.mcp?.resourceMetadata?.resource
    if (resource) urls.push(resource)
  }
  for (const bind of doc.binds) {
    const attached = new Set(bind.listeners.flatMap((l) => l.routes))
    for (const route of doc.routes.filter((r) => attached.has(r.name))) {
      for (const m of (route.rules ?? []).flatMap((r) => r.matches ?? [])) {
        const path = m.path?.value
        if (path && !path.startsWith('/.well-known') && bind.url) urls.push(`${bind.url}${path}`)
      }
    }
  }
  return [...new Set(urls)]
}

/** A body as it may be shown: credentials redacted, JSON indented. */
function bodyText(body: string): string {
  const shown = redactText(body)
  try {
    return JSON.stringify(JSON.parse(shown), null, 2)
  } catch {
    return shown
  }
}

/** One exchange as text a person reads: the request, then the response, credentials redacted. */
function exchangeText(e: Exchange): { request: string; response: string } {
  const headers = (list: Iterable<[string, string]>) =>
    [...list].map(([k, v]) => `${k}: ${redactHeaderValue(k, v)}`).join('\n')
  const req = e.request
  const request = [
    `${req.method} ${redactText(req.url)}`,
    headers(Object.entries(req.headers ?? {})),
    req.body ? `\n${bodyText(req.body)}` : '',
  ]
    .filter(Boolean)
    .join('\n')
  const res: RelayAnswer | undefined = e.response
  const response = res
    ? [
        `${res.status} ${res.statusText}`,
        headers(res.headers),
        res.body ? `\n${bodyText(res.body)}` : '',
        res.truncated ? '[cut]' : '',
      ]
        .filter(Boolean)
        .join('\n')
    : e.error
      ? `no answer: ${e.error}`
      : req.method === 'GET' && !e.response
        ? '(opened in the browser)'
        : '…'
  return { request, response }
}

const VERDICT: Record<Step['verdict'], [string, string]> = {
  holds: ['True', 'holds'],
  fails: ['False', 'fails'],
  refused: ['Unknown', 'refused as expected'],
  skipped: ['Unknown', 'skipped'],
  waiting: ['Unknown', 'in progress'],
}

function checkItem(c: Check): HTMLElement {
  const mark = c.ok === undefined ? 'n/a' : c.ok ? 'holds' : 'fails'
  return h(
    'li',
    { class: `check ${mark.replace('/', '')}` },
    badge(c.ok === undefined ? 'Unknown' : c.ok ? 'True' : 'False', mark),
    ' ',
    h('span', { class: 'level' }, c.level),
    ' ',
    c.text,
    c.seen ? h('span', { class: 'seen' }, ` — seen: ${redactText(c.seen)}`) : null,
    h('br', {}),
    h('small', { class: 'cite' }, c.cite),
  )
}

function stepView(step: Step): HTMLElement {
  const [status, label] = VERDICT[step.verdict]
  return h(
    'section',
    { class: 'step', 'data-step': step.id, 'data-verdict': step.verdict, 'aria-label': step.title },
    h('h3', {}, step.title, ' ', badge(status, label)),
    h('p', { class: 'expect' }, 'Expected: ', step.expect),
    step.note ? h('p', { class: 'note' }, step.note) : null,
    h('ul', { class: 'checks' }, ...step.checks.map(checkItem)),
    ...step.exchanges.map((e, i) => {
      const { request, response } = exchangeText(e)
      const summary = `${e.request.method} ${redactText(e.request.url)} → ${e.response ? e.response.status : e.error ? 'error' : '…'}`
      return h(
        'details',
        { open: i === step.exchanges.length - 1 ? true : undefined },
        h('summary', {}, summary),
        h(
          'div',
          { class: 'exchange' },
          h('h4', {}, 'Request'),
          h('pre', {}, request),
          h('h4', {}, 'Response'),
          h('pre', {}, response),
        ),
      )
    }),
  )
}

/** Starts the page in `root`. */
export function startDebugger(root: HTMLElement, page: PageInfo): void {
  const redirectUri = `${location.origin}${page.base}/callback`
  const input = h('input', {
    id: 'mcp-url',
    type: 'url',
    required: true,
    list: 'mcp-urls',
    size: 40,
  }) as HTMLInputElement
  const options = h('datalist', { id: 'mcp-urls' })
  const steps = h('div', { id: 'steps', 'aria-live': 'polite' })
  const signIn = h('div', { id: 'sign-in' })
  const state = h('p', { id: 'debugger-state', role: 'status' })
  let flow: OAuthFlow | undefined
  let channel: BroadcastChannel | undefined

  const start = async (e: Event) => {
    e.preventDefault()
    channel?.close()
    flow?.forget()
    render(steps)
    render(signIn)
    state.textContent = 'Walking the flow…'
    const current: OAuthFlow = new OAuthFlow(input.value.trim(), redirectUri, {
      send: (ask: RelayAsk) => relayed(page.base, ask),
      changed: () => render(steps, ...current.steps.map(stepView)),
      signIn: (url, expected) =>
        new Promise<URLSearchParams>((resolve) => {
          channel = new BroadcastChannel(CALLBACK_CHANNEL)
          channel.onmessage = (m: MessageEvent<string>) => {
            const query = new URLSearchParams(m.data)
            if (query.get('state') !== expected) return
            channel?.close()
            render(signIn, h('p', {}, 'Signed in: back from the authorization server.'))
            resolve(query)
          }
          render(
            signIn,
            h(
              'p',
              {},
              'Sign in and consent in a new tab; this page goes on when the browser comes back to ',
              h('code', {}, redirectUri),
              '.',
            ),
            h(
              'a',
              { id: 'open-sign-in', class: 'button', href: url, target: '_blank', rel: 'noopener' },
              'Open the sign-in page in a new tab',
            ),
          )
          state.textContent = 'Waiting for the sign-in…'
        }),
    })
    flow = current
    try {
      await current.run()
      const last = current.steps.at(-1)
      state.textContent = `Flow ended at "${last?.title ?? ''}": ${last ? VERDICT[last.verdict][1] : ''}.`
    } catch (err) {
      state.textContent = `The debugger failed: ${(err as Error).message}`
    }
  }

  render(
    root,
    h(
      'p',
      { class: 'hint' },
      'Walks the OAuth flow an MCP client walks against this proxy, with a registration of its own. Tokens are kept in this page only and never shown.',
    ),
    h(
      'form',
      { onsubmit: (e: Event) => void start(e) },
      h('label', { for: 'mcp-url' }, 'MCP endpoint'),
      input,
      options,
      h('button', { type: 'submit', id: 'start-flow' }, 'Start the flow'),
    ),
    state,
    signIn,
    steps,
  )
  void getJson<StatusDocument>('/config_dump')
    .then((doc) => {
      const urls = mcpEndpoints(doc)
      render(options, ...urls.map((u) => h('option', { value: u })))
      if (!input.value && urls[0]) input.value = urls[0]
    })
    .catch(() => undefined)
}

/** The callback page: hands the authorization response to the debugger's tab, keeps nothing. */
export function runCallback(): void {
  const query = location.search.slice(1)
  const channel = new BroadcastChannel(CALLBACK_CHANNEL)
  channel.postMessage(query)
  channel.close()
  history.replaceState(null, '', location.pathname)
  const status = document.getElementById('callback-status')
  if (status) status.textContent = 'Done: the debugger tab goes on. You can close this tab.'
}
