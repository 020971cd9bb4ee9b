import type { User } from '../users/model.ts';

export function userSummary(user: User): { id: number; name: string; email: string } {
  return { id: user.id, name: user.name, email: user.email };
}
