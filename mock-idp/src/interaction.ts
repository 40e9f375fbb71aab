/**
 * The sign-in and consent interaction of an authorization server: a real HTML page for people
 * (pick a user, no password), and in test mode a headless path that signs in the known user named
 * by `login_hint` (OIDC Core §3.1.2.1), so scripted clients can run the code flow unattended.
 * Consent is granted without a page (a first-party demo).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type Provider from 'oidc-provider'
import { escapeHtml, html, readBody } from './http.js'

/** What the interaction needs from the running IdP. */
export interface InteractionContext {
  users: Map<string, { login: string; name?: string; groups: string[] }>
  /** Whether `login_hint` signs a known user in without the page. */
  testMode: boolean
}

/** Handles `<issuer>/interaction/<uid>` (GET shows the page, POST submits it). */
export async function handleInteraction(
  ctx: InteractionContext,
  provider: Provider,
  issuer: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  let details: Awaited<ReturnType<Provider['interactionDetails']>>
  try {
    details = await provider.interactionDetails(req, res)
  } catch (err) {
    return html(
      res,
      400,
      `<!doctype html><title>Sign-in expired</title><p>${escapeHtml((err as Error).message)}. Start again from your application.</p>`,
    )
  }
  const prompt = details.prompt.name
  if (prompt === 'consent') {
    // First-party demo: consent is granted without a page.
    const d = details.prompt.details as {
      missingOIDCScope?: string[]
      missingOIDCClaims?: string[]
      missingResourceScopes?: Record<string, string[]>
    }
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({
          accountId: details.session?.accountId,
          clientId: String(details.params.client_id),
        })
    if (!grant) return html(res, 400, '<p>grant not found</p>')
    if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(' '))
    if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims)
    for (const [indicator, scope] of Object.entries(d.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scope.join(' '))
    }
    const grantId = await grant.save()
    return provider.interactionFinished(
      req,
      res,
      { consent: { grantId } },
      { mergeWithLastSubmission: true },
    )
  }
  // Login.
  let login: string | undefined
  if (req.method === 'POST') {
    login = new URLSearchParams(await readBody(req)).get('login') ?? undefined
  } else if (
    ctx.testMode &&
    typeof details.params.login_hint === 'string' &&
    ctx.users.has(details.params.login_hint)
  ) {
    login = details.params.login_hint
  }
  if (login && ctx.users.has(login)) {
    return provider.interactionFinished(
      req,
      res,
      { login: { accountId: login } },
      { mergeWithLastSubmission: false },
    )
  }
  const options = [...ctx.users.values()]
    .map(
      (u) =>
        `<option value="${escapeHtml(u.login)}">${escapeHtml(u.name ?? u.login)} (${escapeHtml(u.login)}; groups: ${escapeHtml(u.groups.join(', ') || 'none')})</option>`,
    )
    .join('')
  return html(
    res,
    200,
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in — mock-idp</title>
<style>body{font:16px system-ui;max-width:28rem;margin:4rem auto}select,button{font:inherit;padding:.4rem;width:100%;margin:.5rem 0}</style></head>
<body><h1>Sign in</h1><p>Client <code>${escapeHtml(String(details.params.client_id))}</code> asks to sign you in to <code>${escapeHtml(issuer)}</code>.</p>
<form method="post"><label>User<select name="login" autofocus>${options}</select></label><button type="submit">Sign in and approve</button></form>
<p><small>mock-idp: a test identity provider. No password is asked.</small></p></body></html>`,
  )
}
