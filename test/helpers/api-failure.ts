/** The ApiError a service call fails with; any other outcome fails the test. */
import { ApiError } from '../../src/service/errors.js';

export async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}
