import { Model } from 'objection';

export class BalanceTransaction extends Model {
  static override tableName = 'balance_transactions';

  declare id: number;
  declare userId: number;
  declare amountMicros: number;
  declare kind: string;
  declare reference: string | null;
  declare description: string | null;
  declare idempotencyKey: string;
  declare createdAt: Date;
}
