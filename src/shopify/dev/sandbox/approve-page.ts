import escapeHtml from 'escape-html';
import { sandboxPage, type SandboxAnswer } from './http.ts';

const page = (title: string, body: string) => sandboxPage('charge approval', title, body);
import type { ShopifySandboxState } from './state.ts';

/**
 * The sandbox's stand-in for Shopify's charge approval page: the plan, its terms and capped amount,
 * and Approve / Decline. Either answer sends the merchant to the subscription's `returnUrl` with
 * `charge_id` appended, as Shopify does.
 */
export function approvalPage(state: ShopifySandboxState, query: URLSearchParams): SandboxAnswer {
  const subscription = state.subscriptions.get(Number(query.get('subscription')));
  if (!subscription) return { status: 404, html: page('Not found', '<p>No such charge.</p>') };
  const { cappedAmount } = subscription;
  return {
    status: 200,
    html: page(
      `Approve ${subscription.name}`,
      `<p><strong>${escapeHtml(subscription.shop)}</strong> is asked to approve a usage-based plan${subscription.test ? ' (test charge: nothing is billed)' : ''}.</p>
<h2>${escapeHtml(subscription.name)}</h2>
<p>${escapeHtml(subscription.terms)}</p>
<p>Capped amount: <strong>${escapeHtml(cappedAmount.amount)} ${escapeHtml(cappedAmount.currencyCode)}</strong> per 30 days.</p>
<p>Status: <span id="status">${subscription.status.toLowerCase()}</span></p>
<form method="post" action="approve"><input type="hidden" name="subscription" value="${subscription.id}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="decline">Decline</button></form>`,
    ),
  };
}

export function answerApproval(state: ShopifySandboxState, form: URLSearchParams): SandboxAnswer {
  const id = Number(form.get('subscription'));
  const decision = form.get('decision');
  if (decision !== 'approve' && decision !== 'decline')
    return { status: 400, html: page('Bad request', '<p>Choose Approve or Decline.</p>') };
  const subscription = state.answerApproval(id, decision === 'approve');
  if (!subscription) return { status: 404, html: page('Not found', '<p>No such charge.</p>') };
  const target = new URL(subscription.returnUrl);
  target.searchParams.set('charge_id', String(subscription.id));
  return { status: 302, location: target.toString() };
}
