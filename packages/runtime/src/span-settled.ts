import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { PortFailure } from '@cotizaciones/core';

/**
 * Ends `span` when `work` settles. A failure marks it as an error with the port's code (a message
 * may quote what a remote said, or worse): the code is all a trace needs to be searched by.
 */
export async function spanSettled<T>(span: Span, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    const code = error instanceof PortFailure ? error.code : 'UNEXPECTED';
    span.setAttribute('error.type', code);
    span.setStatus({ code: SpanStatusCode.ERROR, message: code });
    throw error;
  } finally {
    span.end();
  }
}
