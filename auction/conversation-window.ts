import type { AdRequest } from './request-schema';

/** The conversation window lives in the domain (the api's relevance test reads through it too). */
export { CONVERSATION_WINDOW, CUT_MARK, conversationWindow } from '../domain/understanding/conversation-window';

/** A message of an ad request, as the window passes it on. */
export type WindowMessage = NonNullable<AdRequest['messages']>[number];
