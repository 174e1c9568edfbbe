import { useEffect, useReducer } from 'react';
import { useSearchParams } from 'react-router';
import type { CorporateApplicationBody } from '@poi/shared/schemas/corporate';
import { EMPTY_APPLICATION, type ApplicationValues } from '../components/corporate-application-form';

export type Step = 'plans' | 'individual' | 'corporate-form' | 'corporate-confirm';

/*
 * The step lives in the URL (/upgrade?plan=individual&step=confirm), so a reload or the browser's
 * back button keeps the user where they were; the corporate confirmation needs the checked form,
 * which is in memory only, so after a reload it falls back to the form.
 */
const STEP_PARAMS: Record<Exclude<Step, 'plans'>, { plan: string; step: string }> = {
  individual: { plan: 'individual', step: 'confirm' },
  'corporate-form': { plan: 'corporate', step: 'form' },
  'corporate-confirm': { plan: 'corporate', step: 'confirm' },
};

export function stepOf(params: URLSearchParams): Step {
  const plan = params.get('plan');
  const step = params.get('step');
  if (plan === 'individual' && step === 'confirm') return 'individual';
  if (plan === 'corporate') return step === 'confirm' ? 'corporate-confirm' : 'corporate-form';
  return 'plans';
}

interface UpgradeSteps {
  /** The step the final confirmation's "上記の内容に同意します" was ticked on; every step change asks for it again. */
  agreedOn: Step | null;
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
  | { type: 'go'; values?: ApplicationValues }
  | { type: 'agree'; step: Step | null }
  | { type: 'confirm'; values: ApplicationValues; application: CorporateApplicationBody }
  | { type: 'checkout-started' }
  | { type: 'checkout-failed' }
  | { type: 'refused'; message: string };

function reduce(state: UpgradeSteps, action: Action): UpgradeSteps {
  switch (action.type) {
    case 'go':
      return { ...state, agreedOn: null, values: action.values ?? state.values };
    case 'agree':
      return { ...state, agreedOn: action.step };
    case 'confirm':
      return { ...state, agreedOn: null, values: action.values, application: action.application, error: null };
    case 'checkout-started':
      return { ...state, starting: true };
    case 'checkout-failed':
      return { ...state, starting: false };
    case 'refused':
      return { ...state, error: action.message };
  }
}

const INITIAL: UpgradeSteps = { agreedOn: null, starting: false, values: EMPTY_APPLICATION, application: null, error: null };

/** The /upgrade step machine: plans → individual confirmation, or plans → corporate form → confirmation. */
export function useUpgradeSteps() {
  const [state, dispatch] = useReducer(reduce, INITIAL);
  const [params, setParams] = useSearchParams();
  const urlStep = stepOf(params);
  // Without the checked application (a reload), the corporate confirmation shows the form again.
  const step: Step = urlStep === 'corporate-confirm' && !state.application ? 'corporate-form' : urlStep;
  const navigate = (to: Step) => setParams(to === 'plans' ? {} : STEP_PARAMS[to]);
  // The agreement is asked again on every step change, the browser's back and forward included.
  useEffect(() => dispatch({ type: 'agree', step: null }), [step]);
  return {
    ...state,
    step,
    agreed: state.agreedOn === step,
    go: (to: Step, values?: ApplicationValues) => {
      dispatch({ type: 'go', values });
      navigate(to);
    },
    agree: (agreed: boolean) => dispatch({ type: 'agree', step: agreed ? step : null }),
    confirm: (values: ApplicationValues, application: CorporateApplicationBody) => {
      dispatch({ type: 'confirm', values, application });
      navigate('corporate-confirm');
    },
    checkoutStarted: () => dispatch({ type: 'checkout-started' }),
    checkoutFailed: () => dispatch({ type: 'checkout-failed' }),
    refused: (message: string) => dispatch({ type: 'refused', message }),
  };
}
