import type { UseCaseDeps } from './change-request.js';
import { changeUseCase, type UseCase } from './change-use-case.js';
import { UPDATE_QUOTATION_ITEM } from './operations.js';

/** Operation B's use case. */
export function updateQuotationItem(deps: UseCaseDeps): UseCase {
  return changeUseCase(deps, UPDATE_QUOTATION_ITEM);
}
