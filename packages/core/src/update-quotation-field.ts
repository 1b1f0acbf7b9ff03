import type { UseCaseDeps } from './change-request.js';
import { changeUseCase, type UseCase } from './change-use-case.js';
import { UPDATE_QUOTATION_FIELD } from './operations.js';

/** Operation A's use case. */
export function updateQuotationField(deps: UseCaseDeps): UseCase {
  return changeUseCase(deps, UPDATE_QUOTATION_FIELD);
}
