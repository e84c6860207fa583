/** `tsx dev/stripe-emulator/main.ts`: the Stripe emulator on 127.0.0.1:$STRIPE_EMULATOR_PORT (default 12111). */
import { startStripeEmulator } from './server';

async function main(): Promise<void> {
  const raw = process.env.STRIPE_EMULATOR_PORT || '12111';
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`STRIPE_EMULATOR_PORT must be a port number, got "${raw}"`);
  }
  const emulator = await startStripeEmulator({ port, host: '127.0.0.1' });
  console.log(`stripe-emulator listening on ${emulator.url}`);

  const shutdown = (): void => {
    emulator.close().then(
      () => process.exit(0),
      (err) => {
        console.error('stripe-emulator: error while closing', err);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((err) => {
  console.error('stripe-emulator:', err instanceof Error ? err.message : err);
  process.exit(1);
});
