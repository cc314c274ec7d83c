import { useState } from 'react';
import { api, errorMessage } from './api.ts';
import type { BillingJson } from '../contract.ts';

export interface PlanApproval {
  approve(): Promise<void>;
  approving: boolean;
  error: string | undefined;
}

/**
 * "Approve plan", wherever the admin offers it (Home's bill, the setup guide's plan step): the plan
 * waiting for approval, or a new one after a decline or cancellation (the server answers a pending
 * plan with that plan, never a second one), opened on Shopify's confirmation page at the top level,
 * outside the admin's iframe. `known` is a confirmation page already loaded; `onBilling` is given the
 * fresh billing state.
 */
export function usePlanApproval(known: string | null, onBilling?: (billing: BillingJson) => void): PlanApproval {
  const [approving, setApproving] = useState(false);
  const [error, setError] = useState<string>();
  const approve = async () => {
    setError(undefined);
    let url = known;
    if (!url) {
      setApproving(true);
      try {
        const renewed = await api<BillingJson>('POST', '/billing/subscribe');
        onBilling?.(renewed);
        url = renewed.subscription.confirmation_url;
      } catch (failure) {
        setError(errorMessage(failure));
      } finally {
        setApproving(false);
      }
    }
    if (url) open(url, '_top');
  };
  return { approve, approving, error };
}
