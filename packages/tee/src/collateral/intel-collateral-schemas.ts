import { z } from 'zod';
import { TCB_STATUSES, type TcbStatus } from './tcb-evaluation';

const hex = z.string().regex(/^[0-9a-fA-F]*$/);
// Collateral lists only Intel's level statuses; the TD relaunch statuses are verdicts, never listed.
const status = z.enum(
  TCB_STATUSES.filter(
    (name) => name !== 'TDRelaunchAdvised' && name !== 'TDRelaunchAdvisedConfigurationNeeded',
  ) as [TcbStatus, ...TcbStatus[]],
);
const component = z.looseObject({ svn: z.number().int().min(0).max(255) });
const advisories = z.array(z.string()).optional();

/** TCB levels keyed by one ISV SVN: a TDX module identity's, and the QE identity's. */
const isvSvnTcbLevels = z.array(
  z.looseObject({
    tcb: z.looseObject({ isvsvn: z.number() }),
    tcbDate: z.string(),
    tcbStatus: status,
    advisoryIDs: advisories,
  }),
);

const moduleIdentity = z.looseObject({
  mrsigner: hex,
  attributes: hex,
  attributesMask: hex,
});

/** Intel PCS TDX TCB info (v3), the JSON object that `signature` signs. */
export const tdxTcbInfoSchema = z.looseObject({
  id: z.string(),
  version: z.number(),
  issueDate: z.iso.datetime(),
  nextUpdate: z.iso.datetime(),
  fmspc: hex,
  pceId: hex,
  tcbEvaluationDataNumber: z.number(),
  tdxModule: moduleIdentity.optional(),
  tdxModuleIdentities: z
    .array(
      moduleIdentity.extend({
        id: z.string(),
        tcbLevels: isvSvnTcbLevels,
      }),
    )
    .optional(),
  tcbLevels: z.array(
    z.looseObject({
      tcb: z.looseObject({
        sgxtcbcomponents: z.array(component).length(16),
        pcesvn: z.number(),
        tdxtcbcomponents: z.array(component).length(16).optional(),
      }),
      tcbDate: z.string(),
      tcbStatus: status,
      advisoryIDs: advisories,
    }),
  ),
});

/** @see tdxTcbInfoSchema */
export type TdxTcbInfo = z.infer<typeof tdxTcbInfoSchema>;

/** Intel PCS enclave identity (v2) of the TD quoting enclave (`id` `TD_QE`). */
export const qeIdentitySchema = z.looseObject({
  id: z.string(),
  version: z.number(),
  issueDate: z.iso.datetime(),
  nextUpdate: z.iso.datetime(),
  tcbEvaluationDataNumber: z.number(),
  miscselect: hex,
  miscselectMask: hex,
  attributes: hex,
  attributesMask: hex,
  mrsigner: hex,
  isvprodid: z.number(),
  tcbLevels: isvSvnTcbLevels,
});

/** @see qeIdentitySchema */
export type QeIdentity = z.infer<typeof qeIdentitySchema>;
