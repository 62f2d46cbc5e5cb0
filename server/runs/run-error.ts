import { Rejection } from '../../shared/protocol/rejection.ts';

export const runNotFound = () => new Rejection(404, 'NOT_FOUND', 'There is no run with this id.');

export const notClaimed = () =>
  new Rejection(409, 'NOT_CLAIMED', 'This run is not claimed by you, or your lease ran out; claim a queued run first.');

export const notInReview = (state: string) =>
  new Rejection(409, 'NOT_IN_REVIEW', `This run is ${state}, not in review: only a run in review can be accepted or discarded.`);

export const alreadyChanged = (instructionId: string) =>
  new Rejection(409, 'ALREADY_CHANGED', `Instruction "${instructionId}" has a change in this run: it is either changed or refused, not both.`, { instructionId });

export const invalidInput = (message: string) => new Rejection(422, 'INVALID_BODY', message);
