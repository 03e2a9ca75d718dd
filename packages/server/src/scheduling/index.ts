/**
 * @module scheduling
 * Durable scheduled messages: the store and the dispatcher that posts them once when due.
 */
export { ScheduledMessageDispatcher } from './scheduled-message-dispatcher';
export type { DispatcherOptions } from './scheduled-message-dispatcher';
export { ScheduledMessageStore } from './scheduled-message-store';
export type { NewScheduledMessage, ScheduledMessageRecord } from './scheduled-message-store';
