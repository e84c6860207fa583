/**
 * Conversations no auction has seen: each a user's question and an assistant's
 * answer drawn from a few dozen topics, with the request's number woven into
 * both, so no message is ever repeated (the auction's per-message caches miss,
 * as on real traffic's new turns) while the words stay ordinary chat.
 */
const TOPICS: [question: string, answer: string][] = [
  ['Which running shoes for a marathon in {n} weeks?', 'Cushioned trainers with a stable heel help on long runs; rotate two pairs over {n} weeks of training.'],
  [
    'My sourdough starter has been sluggish for {n} days, what should I do?',
    'Feed it twice a day at room temperature and discard half before each feeding; it should double within {n} hours.',
  ],
  [
    'Is a {n} bar pump worth it for a home espresso machine?',
    'Pressure matters less than a good grinder; nine bars at the puck is what an espresso shot needs.',
  ],
  [
    'What should I pack for a {n} day camping trip in the mountains?',
    'Layers, a warm sleeping bag, a stove, water filtration and a headlamp cover most of {n} days outdoors.',
  ],
  [
    'How do I learn Spanish before moving to Madrid in {n} months?',
    'Daily practice with an app, a weekly tutor and Spanish podcasts work well over {n} months.',
  ],
  [
    'Can you help me plan a budget for a {n} person wedding?',
    'Start with the venue and catering, usually half of the total, then photography, flowers and music.',
  ],
  [
    'What is a good laptop for programming under {n} dollars?',
    'Look for 16 GB of memory, a fast SSD and a comfortable keyboard; many ultrabooks fit that budget.',
  ],
  [
    'How often should I water tomato plants in a {n} degree heat wave?',
    'Deep watering every morning, mulch around the base, and shade cloth in the afternoon heat.',
  ],
  [
    'Which mechanical keyboard switches are quiet for an office of {n} people?',
    'Tactile or silent linear switches with O-rings keep the noise down in a shared office.',
  ],
  ['How do I file taxes as a freelancer with {n} clients?', 'Track income from each client, keep receipts for expenses and make quarterly estimated payments.'],
  ['What dog food is best for a {n} month old puppy?', 'A puppy formula with high protein and DHA, fed three to four times a day at that age.'],
  ['Which e-bike has the range for a {n} km commute?', 'A mid-drive motor with a 500 Wh battery covers that distance with room to spare.'],
  ['How do I fix a NullPointerException on line {n} of my Java app?', 'Check which reference is null there, add a guard or initialize it before the call.'],
  [
    'Write me a short poem about autumn leaves, {n} lines please.',
    'Amber leaves drift down the lane, whispering of summer rain, {n} lines of gold before the frost.',
  ],
  [
    'What caused the fall of the Roman Empire in {n} words?',
    'Political instability, economic decline, pressure on the borders and the split into two empires.',
  ],
  [
    'How do I get my {n} year old to sleep through the night?',
    'A consistent bedtime routine, a dark room and the same wake-up time every day help most children.',
  ],
  ['Which hotel area is best for a {n} night stay in Lisbon?', 'Baixa and Chiado are central and walkable; Alfama has charm but steep streets.'],
  ['Best way to save {n} dollars for an emergency fund?', 'Automate a transfer to a high-yield savings account every payday and cut one recurring expense.'],
  ['How do I improve my golf swing after {n} rounds this season?', 'Work on tempo and a balanced finish; a lesson with a pro catches what you cannot see.'],
  ['What skincare routine helps dry skin in {n} degree winters?', 'A gentle cleanser, a hydrating serum and a rich moisturizer, with sunscreen every morning.'],
];

export function freshConversation(n: number): { role: 'user' | 'assistant'; content: string }[] {
  const [question, answer] = TOPICS[n % TOPICS.length];
  const fill = (text: string) => text.replaceAll('{n}', String(n));
  return [
    { role: 'user', content: fill(question) },
    { role: 'assistant', content: fill(answer) },
  ];
}
