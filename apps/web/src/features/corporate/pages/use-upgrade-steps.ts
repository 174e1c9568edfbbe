import { useReducer } from 'react';
import type { CorporateApplicationBody } from '@poi/shared/schemas/corporate';
import { EMPTY_APPLICATION, type ApplicationValues } from '../components/corporate-application-form';

export type Step = 'plans' | 'individual' | 'corporate-form' | 'corporate-confirm';

interface UpgradeSteps {
  step: Step;
  /** The final confirmation's "上記の内容に同意します"; every step change asks for it again. */
  agreed: boolean;
  /** On the way to Stripe Checkout; the page is about to leave. */
  starting: boolean;
  /** What the corporate form holds, kept while the user goes to the confirmation and back. */
  values: ApplicationValues;
  /** The checked application the confirmation shows and sends. */
  application: CorporateApplicationBody | null;
  /** The server's refusal of the application, shown on the confirmation. */
  error: string | null;
}

type Action =
  | { type: 'go'; step: Step; values?: ApplicationValues }
  | { type: 'agree'; agreed: boolean }
  | { type: 'confirm'; values: ApplicationValues; application: CorporateApplicationBody }
  | { type: 'checkout-started' }
  | { type: 'checkout-failed' }
  | { type: 'refused'; message: string };

function reduce(state: UpgradeSteps, action: Action): UpgradeSteps {
  switch (action.type) {
    case 'go':
      return { ...state, step: action.step, agreed: false, values: action.values ?? state.values };
    case 'agree':
      return { ...state, agreed: action.agreed };
    case 'confirm':
      return { ...state, step: 'corporate-confirm', agreed: false, values: action.values, application: action.application, error: null };
    case 'checkout-started':
      return { ...state, starting: true };
    case 'checkout-failed':
      return { ...state, starting: false };
    case 'refused':
      return { ...state, error: action.message };
  }
}

const INITIAL: UpgradeSteps = { step: 'plans', agreed: false, starting: false, values: EMPTY_APPLICATION, application: null, error: null };

/** The /upgrade step machine: plans → individual confirmation, or plans → corporate form → confirmation. */
export function useUpgradeSteps() {
  const [state, dispatch] = useReducer(reduce, INITIAL);
  return {
    ...state,
    go: (step: Step, values?: ApplicationValues) => dispatch({ type: 'go', step, values }),
    agree: (agreed: boolean) => dispatch({ type: 'agree', agreed }),
    confirm: (values: ApplicationValues, application: CorporateApplicationBody) => dispatch({ type: 'confirm', values, application }),
    checkoutStarted: () => dispatch({ type: 'checkout-started' }),
    checkoutFailed: () => dispatch({ type: 'checkout-failed' }),
    refused: (message: string) => dispatch({ type: 'refused', message }),
  };
}
