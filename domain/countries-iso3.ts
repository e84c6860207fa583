import { alpha2ToAlpha3 } from 'i18n-iso-countries';
import { COUNTRY_CODES } from './countries';

/** ISO 3166-1 alpha-2 -> alpha-3 for every code in domain/countries.ts (OpenRTB's device.geo.country is alpha-3). */
export const ALPHA3: ReadonlyMap<string, string> = new Map([...COUNTRY_CODES].map((code) => [code, alpha2ToAlpha3(code)!]));

/** The EU's 27 member states. */
const EU = 'AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE'.split(' ');
/** The rest of the EEA (IS, LI, NO), UK GDPR (GB) and Swiss rules (CH). */
const EEA_UK_CH = ['IS', 'LI', 'NO', 'GB', 'CH'];

/**
 * Countries whose law requires consent before identifiers are kept (the EEA,
 * the UK and Switzerland): domain/events/consent.ts truncates without it.
 */
export const CONSENT_REQUIRED_COUNTRIES: ReadonlySet<string> = new Set([...EU, ...EEA_UK_CH]);

/**
 * Countries under GDPR (EU 27 and its outermost regions with their own codes),
 * the EEA (IS, LI, NO), UK GDPR (GB) and Swiss rules (CH): OpenRTB regs.gdpr = 1.
 */
export const GDPR_COUNTRIES: ReadonlySet<string> = new Set([...EU, 'AX', 'GF', 'GP', 'MQ', 'RE', 'YT', 'MF', ...EEA_UK_CH]);
