/**
 * The cues of each sensitive category, in the pattern language of
 * patterns.ts. A category is detected at a score of 1 (classifier.ts):
 *   strong  1     enough alone ("kill myself", "cocaine", "who should i vote for")
 *   medium  0.5   two are needed ("depressed", "chest pain", "sports betting")
 *   weak    0.25  context only ("casino", "therapist")
 * Each line counts once per conversation. Words are stemmed like the
 * conversation's (inflections only), apostrophes are dropped ("dont", "im").
 *
 * Cues are written from what each category sounds like in chat, paraphrase
 * and slang included; near misses that would otherwise trip a cue are listed
 * in NEAR_MISSES, which mask their words before cues are matched.
 */
import type { SensitiveCategory } from './categories';

export interface CategoryCues {
  strong: readonly string[];
  medium?: readonly string[];
  weak?: readonly string[];
}

export const CUE_WEIGHTS = { strong: 1, medium: 0.5, weak: 0.25 } as const;

const IM = '(im|i am|i m)';
const DONT = '(dont|do not)';
const CANT = '(cant|cannot|can not)';
const WONT = '(wont|will not|doesnt|does not|cant|cannot)';
const RELATIVE = '(dad|mom|mum|father|mother|brother|sister|son|daughter|wife|husband|friend|best friend|grandma|grandpa|grandmother|grandfather|cousin|uncle|aunt|coworker|colleague|boss|partner|boyfriend|girlfriend|fiance|baby|niece|nephew|neighbor|roommate|classmate)';
const GROUP = '(immigrants|migrants|refugees|muslims|jews|jewish people|blacks|black people|whites|white people|mexicans|asians|arabs|gays|gay people|lesbians|trans people|transgender people|women|females|latinos|hispanics|indians|chinese people|africans)';

export const CUES: Readonly<Record<SensitiveCategory, CategoryCues>> = {
  self_harm: {
    strong: [
      'suicide', 'suicidal', 'suicidality', 'sewerslide', 'unalive', 'kms',
      'kill myself', 'kill my self', 'off myself', 'hang myself', 'harm myself', 'drown myself', 'shoot myself',
      '(end|take) my (own)? life', 'end it all', 'end my own',
      `(want to|wanna|going to|gonna|ready to|plan to|planning to|feel like|thinking about|thinking of|think about|thought about) end it`,
      '(want to|wanna|wish i could|ready to|going to|gonna|deserve to) die', 'wish i (was|were|had) (dead|never been born)', 'i should (just)? die',
      'better off dead', 'better off without me',
      '(everyone|everybody|they|people|world|family|everyone else) ~3 better off ~3 (without me|if i (wasnt|werent|was not|were not) (around|here|alive|born)|if i (was|were) gone|if i (died|disappeared|left))',
      '(happier|better) if i (just)? (stopped existing|was gone|were gone|was dead|were dead|disappeared|died)',
      `${DONT} want to (live|be alive|be here|exist|wake up|go on) (anymore)?`, 'no longer want to (live|be alive|be here|exist)',
      '(no|nothing) (reason|point) (to|in|of) (live|living|go on|going on|wake up)', 'nothing (left)? to live for', 'not worth living',
      '(to|and) (never|not) wake up', 'sleep forever',
      'stop existing', 'stopped existing', 'cease to exist',
      'self (harm|harming|injury|injure|mutilation)', 'selfharm',
      '(want to|urge to|urges to|thinking about|thoughts of|keep|been) ~2 (hurt|harm|cut|burn|starve) myself',
      '(been|started|start|keep|stop) cutting (again)?', 'cutting again', 'relapsed on (self harm|cutting)',
      '(cut|cutting|slit|slitting) ~2 (wrist|wrists|thighs)', 'hide ~3 (scars|cuts) ~3 (arms|wrists|thighs)',
      'overdose on ~2 (pill|pills|meds|medication|tylenol|paracetamol|sleeping pills)',
      '(swallow|take|took|swallowed) all ~2 (pill|pills|meds|medication|tablets|antidepressants|painkillers|sleeping pills|prescription|insulin)',
      '(all|whole bottle of|entire bottle of) ~2 (pill|pills|meds|antidepressants|painkillers|tylenol|paracetamol) at once',
      'make sure i (dont|do not|wont|never) (survive|wake up)', '(tired of|sick of|done with|exhausted by) (existing|living|being alive)',
      '(want|wanna|need) to not (be here|exist|be alive|wake up)', 'not (be|being) here anymore',
      'how (many|much) ~5 (pill|pills|tablets|tylenol|paracetamol|insulin) ~5 (take|kill|die|lethal|overdose|wake up)',
      'lethal dose', 'lethal if ~3 (drink|swallow|take|eat)', '(chemicals|pills|drugs) (are|is)? lethal',
      '(painless|quick|easy|quickest|easiest) (way|ways|method|methods) (to)? (die|go|end it|kill myself)',
      '(goodbye|farewell|suicide) (note|notes|letter|letters)',
      '(have|got|bought|buy) the (rope|noose)', 'noose',
      'samaritans', '988',
      'thinking ~2 (end|ending|take|taking) your (own)? life', '(end|ending|take|taking) your (own)? life',
      '(thinking|thought|thoughts) (about|of) (kill|killing|hurt|hurting|harm|harming) yourself',
      '(plan|planning|going|want|wanting|intend|intending) to (hurt|harm|kill) yourself',
      '(kill|killing|killed) (himself|herself|themselves|themself)', '(end|ending|take|taking) (his|her|their) (own)? life',
      'want (it|this|everything|the pain) (all)? to (end|stop) (permanently|forever|for good)',
    ],
    medium: [
      '(hurt|cut|burn|starve) myself', 'burn myself with', 'overdose', 'how many (pill|pills|sleeping pills)',
      'lethal', '(jump|jumping) (off|from) ~3 (bridge|building|roof|balcony|cliff|overpass)', 'thinking (about|of) jumping',
      'fall (kill|kills) (you|me)', '(dont|not|wont) survive', '(survive|surviving) (a|the) fall',
      '(fall|jump|jumping) (from|off) (a|the)? (parking garage|garage|building|bridge|roof|balcony|cliff|overpass|tower)',
      '(said|say|saying) (my)? goodbyes', '(want|wish) (everything|it all|the world|my head) to (go quiet|stop|go away)',
      'put the (pills|meds|knife|gun|rope) (somewhere)? (out of reach|away)', `${IM} (not|not going to) (be|be around) (much longer|for long)`, '(decided|deciding) ~3 (tonight|today) (is|will be) the (night|day)', 'worried about you', 'disappear (forever|for good|permanently)', 'disappeared (forever|for good)',
      'nobody would (even)? (notice|care|miss me)', 'no one would (even)? (notice|care|miss me)',
      '(such|a|the) burden (on|to) (everyone|everybody|my family|them|you|people)', '(im|i am) a burden',
      '(give|giving|gave) away ~2 (stuff|things|belongings|possessions)', '(give|giving|gave) ~3 (stuff|things|belongings|possessions) away',
      'wrote ~3 (letters|letter|notes) to (my)? (family|parents|kids|everyone)',
      'last time ~3 (talk|speak) to (anyone|anybody|you)',
      `${DONT} see the point (anymore|in living|of living|in anything|in life)?`,
      '(want|need) (it|this|everything|the pain) (all)? to (end|stop)', 'kill yourself', `${CANT} go on`,
      'crisis (line|hotline|lifeline|text line)', 'are you (safe|okay|ok) right now', 'suicide hotline',
    ],
    weak: [
      '(im|i am) done', '(ive|i have) had enough', 'rope', 'scars',
    ],
  },

  mental_health_crisis: {
    strong: [
      '(panic|anxiety) attack', 'mental (breakdown|health crisis)', 'nervous breakdown', `(${IM}|think ${IM}) having a breakdown`,
      'hearing voices', 'voices (in my head|telling me)',
      '(tv|radio|phone|neighbors|neighbours|government|they|people) ~3 (sending me messages|spying on me|poisoning my|reading my thoughts|following me everywhere)', 'psychotic', 'psychosis', `${IM} (manic|having a manic episode)`,
      '(feel|feeling|felt|so|completely|totally|utterly|very) hopeless', '(feel|feeling|felt|so|completely|totally) worthless',
      `${CANT} (cope|go on)`, `${CANT} (take|handle|do) (it|this|anything|any of this) anymore`,
      '(my life|everything) (is)? falling apart', `${CANT} stop (crying|sobbing)`, 'crying (all day|every day|every night|for hours|nonstop)',
      '(in|into|at) a (really|very|pretty)? (dark|bad) place',
      'dissociate', 'dissociation', 'dissociative', 'depersonalization', 'derealization',
      '(severe|severely|so|really|deeply|clinically) depressed', 'severe depression', '(im|i am|been) (so|really)? depressed and',
      'eating disorder', 'anorexia', 'anorexic', 'bulimia', 'bulimic', 'binge and purge', 'starving myself',
      '(purge|purging|throwing up|throw up|make myself throw up) after ~2 (meal|meals|eating|i eat)',
      'crisis (line|hotline|lifeline|text line|counselor|counsellor|team)', '741741', 'text home to',
      '(im|i am|been|keep|started) spiraling', 'losing my mind', 'mental health emergency', `feel like ${IM} drowning`,
    ],
    medium: [
      'hopeless', 'worthless', 'hate myself', '(having|had|have) a breakdown', '(feel|feeling) (so|completely)? (empty|numb|dead inside)', 'empty inside', 'nothing matters',
      `${CANT} handle (this|it|anything)`, `${CANT} calm down`, `${CANT} stop shaking`, 'freaking out', 'sobbing',
      'everything (is)? falling apart', 'spiral (out|bad|badly|really|again)',
      '(im|i am|been|feel|feeling|really|so) depressed', 'depression', 'depressed',
      'manic', 'mania', 'bipolar', 'paranoid', '(people|they|someone|somebody) ~3 watching me',
      'flashbacks', 'ptsd', 'panic', 'outside my body', 'watching myself', 'not real',
      `(${CANT}|can barely|barely) get out of bed`,
      `(havent|have not|haven t) (slept|eaten|showered|left) ~4 (days|day|week|weeks)`, '(havent|have not) slept at all',
      `(havent|have not|${CANT}) ~3 (leave|left) (my|the) (apartment|house|room|bed)`,
      `${CANT} stop (screaming|panicking|hyperventilating)`, 'screaming into (my)? pillow', 'nothing helps', '(fell|falling) apart',
      '(whats|what is) (even)? the point (of anything|of living|of life|anymore)', '(feel|feeling) (so|completely|totally|really)? broken',
      'panic response', '(couldnt|could not) breathe', 'crying (in|for) ~3 (hour|hours)', `${CANT} do this (anymore)?`, 'breaking point',
      'hearing (my name|things|someone) ~3 (no one|nobody)', '(people|someone|they) (are|is)? (following|watching) me',
      'mind (wont|will not|doesnt) stop racing', 'racing thoughts', 'going insane',
      '(nobody|no one) (sees|understands|notices|cares about) (it|me)', 'every day is worse',
      '(completely|totally|so|really) overwhelmed', 'hiding in the (bathroom|closet)', 'purge', 'purging', 'relapse',
      '(had|having) a (complete|total)? meltdown', 'grounding (exercise|technique)', 'are you (somewhere)? safe',
      'breathe (with me|together)', 'trauma responses', 'sounds like (dissociation|a panic attack|trauma)', 'crisis',
    ],
    weak: [
      'therapist', 'psychiatrist', 'overwhelmed', 'drowning', 'trauma', 'triggered', 'going crazy', 'meltdown',
      'shaking', '(heart|chest) (is)? (pounding|racing|tight)', `${CANT} breathe`, 'scared', 'terrified', 'cant think',
      'ruining my life', 'dark', 'alone',
    ],
  },

  sexual: {
    strong: [
      'porn', 'porno', 'pornography', 'pornhub', 'xvideos', 'xxx', 'nsfw', 'hentai', 'onlyfans', 'only fans', 'fansly',
      '(send|sending|sent|my|your|her|his) nudes', 'nude (photo|photos|pic|pics|picture|pictures|selfie|selfies|video|videos)',
      'sext', 'sexting', 'horny', 'erotic', 'erotica', 'milf', 'milfs',
      '(have|having|had|casual|oral|anal|rough|phone|group|kinky|explicit|graphic|hot) sex', 'during sex',
      'sex (scene|scenes|position|positions|toy|toys|tape|chat|story|stories|act|acts|work|worker|workers|drive|life|dream|fantasy|doll)',
      'sexual (content|roleplay|role play|fantasy|fantasies|position|positions|encounter|favors|story)',
      'bdsm', 'bondage', 'dominatrix', 'fetish', 'masturbate', 'masturbation', 'jerk off', 'jerking off', 'orgasm', 'orgasms',
      'blowjob', 'handjob', 'rimjob', 'dick pic', 'dick pics', 'vibrator', 'dildo', 'buttplug', 'butt plug',
      'strip club', 'stripper', 'strippers', 'prostitute', 'prostitutes', 'prostitution', 'brothel', 'call girl', 'camgirl', 'cam girl',
      '(find|hire|book|get) ~2 (escort|escorts)', 'escort (service|services|agency)',
      '(quick|casual|a) hookup', 'hookup app', 'one night stand', 'no strings (sex|hookup|fun)',
      'steamy (night|scene|scenes|story|encounter|sex)', 'cam (show|shows|site|sites|girl|girls|model|models)', 'adult (cam|webcam)',
      'threesome', 'foursome', 'orgy', 'swingers', '(get|getting) (her|him|someone|somebody|a girl|a guy|them) into bed', 'sugar (daddy|baby|babies|dating|mommy)', 'smut', 'smutty', 'lemon fanfic',
      'adult (toy|toys|store|shop|content|site|sites|film|films|movie|movies|videos|entertainment)', 'sex shop',
      'last longer in bed', 'premature ejaculation', 'dirty (story|stories|talk|talking)', 'revenge porn',
    ],
    medium: [
      'sex', 'sexual', 'nude', 'nudes', 'naked', 'escort', 'escorts', 'hookup', 'kink', 'kinky', 'penetration', 'pussy', 'tits', 'titties',
      'erectile', 'genitals', 'penis', 'vagina', 'no strings', 'steamy', 'make it (erotic|graphic|explicit|dirty|sexy|steamy)',
      'roleplay as my (girlfriend|boyfriend|wife|husband|lover|mistress)', 'describe her body', 'hooker',
      'pay (for|me for) (pics|nudes|photos|content)', 'adult products', 'in full detail', 'dont hold back',
    ],
    weak: ['sexy', 'dick', 'cock', 'boobs', 'breast', 'lube', 'condom', 'condoms', 'lingerie', 'in bed', 'explicit', 'graphic', 'flirty'],
  },

  minors: {
    strong: [
      `${IM} (only|just|almost|nearly|turning|like)? #teen ($|years|yrs|yr|year|yo|y o|and|so|but|rn|now|lol)`,
      `${IM} (a|an) #teen (year|years|yr|yrs) old`,
      `${IM} (only|just)? (a|an) (kid|child|minor|teenager|teen|preteen|tween|little kid)`,
      `${IM} (in|only in) #ordinal grade`, 'in #ordinal grade and',
      'underage', 'child (abuse|abuser|neglect|porn|pornography|exploitation|predator|trafficking|molester)', 'csam',
      'child protective services', 'age of consent', 'molest', 'molested', 'molesting',
      'grooming (warning)? signs', 'being groomed', '(groom|grooming|groomed) (a|my)? (child|kid|minor|teen|daughter|son)',
      'adult stranger', 'grown (man|men|woman) ~3 (message|messaging|texting|chatting|talking)',
      `${IM} (a)? (freshman|sophomore|junior|senior) in high school`, `${IM} in (middle|high|elementary|junior high|primary) school`,
      '(boyfriend|stepdad|stepfather|uncle|coach|teacher|babysitter|neighbor|cousin) ~3 (touches|touched|touching) me',
    ],
    medium: [
      '#ordinal grade', 'what grade are you in', `(my)? (mom|mum|dad|parents|mother|father) ${WONT} let me`, `(mom|mum|dad|parents|mother|father) said ${IM} too young`,
      '(without|before) (my)? (mom|mum|dad|parents) (knowing|finding out|noticing|asking)', '(mom|mum|dad|parents|mother|father) (credit)? card',
      'my teacher (said|says|told|wont|gave|asked)', 'too young for', 'pedophile', 'paedophile', 'predator',
      '(chatting|talking|messaging|texting) (with|to) (an|a|some)? (adult|older man|older guy|grown man|stranger)',
      'older (guy|man) ~6 (pics|pictures|photos|meet)', '(wants|asked|asking) me to send ~2 (pics|pictures|photos)',
      'run away from home', 'asked (her|him|me) to keep (it|this|things)? (a)? secret', '(says|said|told me) not to tell',
      'tell a (teacher|school counselor|trusted adult)', 'sneak out', '(asking|asked|asks) (her|him) for (photos|pics|pictures|nudes|selfies)',
      'asking for (photos|pics|pictures|nudes|selfies)', '(sent|sending|sends) (her|him) (private|secret)? messages', '(kid|kids|child|children) ~5 (bruise|bruises|bruised|beaten|neglected)',
      'lock (them|him|her) (outside|out)', 'for my age', 'is (it)? my fault', 'its not your fault',
    ],
    weak: ['homework', 'science project', 'for school', 'roblox', 'robux', 'how old are you', 'grown ups'],
  },

  medical_emergency: {
    strong: [
      'heart attack', '(having|had|have) a stroke', '(sign|signs|symptom|symptoms) of a stroke', 'stroke (symptoms|signs)',
      '(face|mouth|smile) (is)? (drooping|droopy)', 'slurred speech', 'speech is slurred', 'slurring (his|her|my)? words',
      '(crushing|severe|sharp|bad) chest pain', 'not breathing', 'stopped breathing', 'throat (is)? (swelling|closing|closing up)',
      'anaphylaxis', 'anaphylactic', 'unconscious', 'unresponsive', `${WONT} wake up`, `${CANT} wake (him|her|them) up`,
      '(having|had|has) a seizure', 'convulsing', 'convulsions',
      '(swallowed|ate|drank|swallow) ~2 (battery|batteries|bleach|detergent|poison|rat poison|antifreeze)', 'button battery', 'poison control',
      `${WONT} stop bleeding`, 'bleeding (heavily|a lot|badly|profusely)', 'bone (is)? sticking out', '(compound|open) fracture',
      'call 911', 'call (an|the) ambulance', 'call emergency services', 'emergency room', '(to|in|at) the er', 'ambulance', 'paramedics',
      'icu', 'intensive care', 'ventilator', 'life support', 'hospice', 'palliative', 'end of life care',
      'terminal (cancer|illness|diagnosis|disease)', 'terminally ill',
      '(have|has|had|with|fight|fighting|battle|battling|beat|survivor|diagnose|diagnosed) ~2 cancer', 'stage * ~3 (cancer|tumor)',
      'chemo', 'chemotherapy', 'radiation (therapy|treatment)', 'radiotherapy', 'brain tumor', 'brain tumour',
      'glioblastoma', 'leukemia', 'lymphoma', 'melanoma', 'mesothelioma', 'metastatic', 'metastasized',
      '(have|has|got|with) als', 'lou gehrig', 'dialysis', '(kidney|kidneys|liver|heart|organ|organs) (is|are)? (failure|failed|failing)',
      'sepsis', 'septic shock', 'malignant', '(lips|face|skin|fingers) (are|is)? (turning|turned|going) blue', 'emergency surgery', 'hit by a (car|truck|bus|train)',
      'fever (of|is)? (103|104|105|106)', 'too much insulin', 'insulin (overdose|shock)', 'hypoglycemic',
    ],
    medium: [
      'chest pain', '(arm|face|side|leg) (feels|is|went|going)? numb',
      `(${CANT}|hard to|trouble|difficulty|struggling to) (breathe|breathing)`, 'breathing (weird|strange|funny|shallow|irregular)',
      'allergic reaction', 'epipen', 'epi pen', '(lips|tongue|face|throat) (are|is)? swelling', 'seizure', 'passed out',
      'lot of blood', 'deep (cut|wound|gash)', 'broke (my|his|her) (leg|arm|neck|back|hip)', 'broken (leg|neck|back|hip)',
      'head injury', 'hit (his|her|my) head', 'concussion', 'overdose', 'cancer', 'tumor', 'tumour', 'oncologist', 'oncology',
      'just (got|been)? diagnosed', 'survival rate', 'biopsy', 'needs a transplant', 'start treatment', 'prognosis', 'days not weeks', 'in surgery', 'surgery',
      '(shaky|dizzy) and confused', 'emergency services', 'cardiologist', 'hospital', 'doctors want to talk',
      'fever', 'limp', 'poison', 'the er',
    ],
    weak: ['diagnosed with', 'doctors', 'transplant', 'blood sugar', 'took something', 'emergency', 'insulin', 'er'],
  },

  hate_harassment: {
    strong: [
      'racist (comments|comment|slurs|slur|remarks|abuse|messages|harassment|insults|jokes)', '(racial|sexual) harassment',
      'death threats', 'threatening (letters|letter|messages|notes|texts|calls|emails)',
      'harass', 'harassing', 'harassed', 'harassment', 'bully', 'bullied', 'bullying', 'cyberbully', 'cyberbullied', 'cyberbullying',
      '(stalk|stalking|stalks|stalked) (me|her|him|them|us|my)', 'stalker', 'dox', 'doxx', 'doxxing', 'doxing', 'doxxed',
      'n word', 'nigger', 'niggers', 'nigga', 'faggot', 'faggots', 'fag', 'fags', 'retard', 'retarded', 'tranny', 'trannies', 'kike', 'kikes',
      'wetback', 'wetbacks', 'beaner', 'beaners', 'spic', 'spics', 'chink', 'chinks', 'gook', 'gooks', 'raghead', 'towelhead', 'paki',
      `${GROUP} ~2 (criminals|terrorists|animals|vermin|rats|cockroaches|parasites|subhuman|disgusting|inferior|evil|scum|filth|savages|rapists|diseased|lazy|dirty|thieves|violent|stupid|dumb|ugly)`,
      '(breed|multiply) like (rats|rabbits|cockroaches|animals|vermin)', '(a|just a) (drain|burden) on society',
      `(${GROUP}|disabled people|the disabled|poor people|homeless people|fat people|old people) ~4 (a drain on society|drain on society|burden on society|leeches|freeloaders)`,
      `(send|sent|go|deport) ~2 back (where|to where) (they|you|he|she) came from`, 'go back to (your|their|his|her) (own)? country',
      'told me to go back to', '(white|aryan|master) (race|power|supremacy|supremacist|supremacists)', 'race is superior', 'superior race',
      '(jews|jewish people|zionists) (control|run|own) ~3', 'ethnic cleansing', 'hate (speech|crime|crimes|group|groups)',
      'kkk', 'ku klux', 'holocaust (denial|hoax|never happened|didnt happen)', 'kys',
      '(call|calling|calls|called) me (names|a slur|slurs|the n word)', 'calling me names',
    ],
    medium: [
      'racist', 'racism', 'slur', 'slurs', 'threaten', 'threats', 'bullies', 'belong in the kitchen',
      '(troll|trolling) (someone|somebody|him|her|them|people)', 'troll ~3 until', 'humiliate', 'humiliating',
      'make (him|her|them|someone|my ex) (feel)? (worthless|miserable|humiliated|pathetic)',
      'ruin (his|her|their|someones|somebodys) life', 'get back at', `shouldnt be allowed (near|around) (kids|children)`,
      '(find out|figure out|uncover|track down) (the)? (real name|identity|address|face) (of|behind)', 'unmask', 'expose (them|him|her)',
      '(home|house) address of', 'find (out)? where (he|she|they) (lives|live)', 'who (banned|blocked|rejected|dumped|reported|fired) me',
      'mocks my (accent|race|religion|skin|disability|weight|hair)', 'fake (profile|account|accounts) (of|pretending to be) me',
      'antisemitic', 'antisemitism', 'islamophobic', 'islamophobia', 'homophobic', 'homophobia', 'transphobic', 'transphobia',
      'xenophobic', 'misogynist', 'misogyny', 'nazi', 'nazis', 'neo nazi', 'conspiracy theory',
      '(should|go|just) (go)? (die|kill yourself|kill herself|kill himself)', 'image based abuse', 'spreading rumors', 'prove me wrong',
      'inferior', 'superior', '(knows|know) where (i|you) live', 'demean', 'demeaning',
    ],
    weak: ['revenge', 'troll', 'mocks', 'mock', 'rumors', 'humiliated', 'report the account', 'report the profile', 'block him', 'block them'],
  },

  violence_tragedy: {
    strong: [
      '(mass|school|drive by|church|mall) shooting', 'shooting (at|in) (my|the|a|our|his|her)? ~2 (school|mall|office|concert|church|mosque|synagogue|store|party|work|campus|club)',
      'active shooter', 'gunman', 'gunmen', '(was|were|got|been|get|being) shot', 'shot (dead|to death|and killed)', 'gunfire', 'gunshot', 'gunshots',
      '(was|were|got|been|be|being) (killed|murdered|stabbed|slain|beaten to death|executed|massacred)',
      '(killed|died|dead|burned) (in|during) (a|the)? (crash|accident|attack|shooting|fire|explosion|war|bombing|earthquake|flood|hurricane|tornado|tsunami)',
      'murder', 'murdered', 'murderer', 'stabbed', 'stabbing', 'knifepoint', 'gunpoint', 'mugged', 'armed robbery', 'carjacked',
      'domestic (violence|abuse)', `(he|she|husband|wife|boyfriend|girlfriend|partner|dad|father|mom|mother|stepdad|stepfather|stepmom|parents|ex) (hit|hits|beat|beats|punched|punches|kicked|kicks|slapped|slaps|choked|chokes|strangled|shoved|pushed|threw|grabbed) (me|her|him|us)`,
      'abusive (relationship|husband|wife|partner|boyfriend|girlfriend|parent|parents|father|mother)', 'kill me if', 'threatened to kill',
      'beat (the crap|the shit|the hell|the life) out of', 'beat (him|her|them|someone|somebody) up',
      '(going to|gonna|want to|wanna|will|about to) (hurt|beat|stab|shoot|kill|strangle|attack) (him|her|them|someone|somebody|my neighbor|my boss|my ex|you)',
      '(hurt|injure) (him|her|them|someone) (so bad|so badly|badly|real bad)',
      '(hurt|beat|hit|punch|poison|attack|kill) ~3 without (leaving|getting caught|anyone knowing|a trace)', 'without leaving (marks|a mark|bruises|evidence|a trace)',
      '(missile|missiles|rocket|rockets|bombs|drones|shells|airstrikes) (hit|struck|landed on|destroyed)', '(make|build|print) ~3 (silencer|suppressor|ghost gun|untraceable gun)', 'ghost gun', '(kill|poison) a (grown)? (man|woman|person|human|adult|kid|child)', 'poison (someone|somebody|him|her|them|my)',
      '(pipe|car|nail|dirty) bomb', '(make|build|making|building) (a|an)? (bomb|explosive|explosives)', 'bomb (threat|attack|blast|went off|exploded)',
      'suicide bomber', 'bomber', 'terrorist attack', 'terror attack', 'terrorism', 'terrorists',
      '(war|warzone) (footage|victims|crimes|casualties|zone)', 'war crimes', 'airstrike', 'air strike', 'missile strike', 'shelling', 'genocide',
      'dead bodies', 'casualties', 'death toll', 'fatalities', 'how many (people)? (died|dead|were killed|victims)',
      `(my|our) ~2 ${RELATIVE} ~2 (died|passed away|passed|was killed|were killed|got killed|was murdered|got murdered|didnt make it|was stabbed|was shot|committed suicide)`,
      `${RELATIVE} (was|got) (killed|murdered|shot|stabbed)`, 'killed my', 'passed away (suddenly|last night|this morning|yesterday)',
      'eulogy', 'sorry (for|about) your loss', 'sorry for the loss', '(lost|died|killed) ~3 in (the|a) fire',
      'abducted', 'kidnapped', 'kidnapping', 'rapist', 'amber alert', 'hostage', 'hostages', 'raped', 'rape', 'sexual assault', 'sexually assaulted',
      'fatal (crash|accident|shooting)', 'plane crash', 'people (are)? (still)? (missing|trapped) (after|in)',
    ],
    medium: [
      'shooting', 'massacre', 'assault', '(from|after|since) the (assault|attack|shooting|stabbing|crash|accident|bombing)', 'assaulted', 'robbed', 'attacked me', 'hit me (again)?', 'abusive', 'beaten',
      'never walk again', 'without (it)? (showing up|being detected|getting caught)', 'victims', 'victim', 'bodies', 'corpse',
      '(earthquake|tsunami|hurricane|tornado|wildfire|flood|flooding|landslide|typhoon|cyclone|avalanche)',
      '(destroyed|devastated|wiped out|flattened) (our|the|my)? ~2 (town|home|house|city|village|neighborhood|everything)',
      '(people|everyone|residents|families) (are)? (still)? (missing|dead|trapped)', '(burned|burnt) down', 'house fire',
      '(car|train|helicopter|bus|motorcycle) crash', 'car accident', 'crash footage', 'footage', 'passed away', 'funeral', 'memorial',
      'condolences', 'grieving', 'grief', 'bereavement', 'mourning', 'rest in peace', `lost my ${RELATIVE}`, 'death', 'deaths',
      `(your|her|his|their) ${RELATIVE} s? death`, 'tragedy', 'tragic', 'devastating', 'war', 'terrorist',
      '(police|cops) (shot|killed|beat)', 'threatened', 'amber', 'abuse', 'missile', 'missiles', 'gaza', 'ukraine', 'invasion', 'riot', 'riots',
    ],
    weak: ['died', 'dead', 'kill', 'knife', 'gun', 'bomb', 'fight', 'blood', 'violent', 'violence', 'shaking', 'horrible', 'heartbreaking', 'terrifying', 'police'],
  },

  illegal_drugs: {
    strong: [
      'cocaine', 'heroin', 'meth', 'methamphetamine', 'crystal meth', 'fentanyl', 'mdma', 'ecstasy', 'lsd', 'shrooms', 'magic mushrooms',
      'psilocybin', 'ketamine', 'crack cocaine', 'crackhead', 'crack pipe', 'smoke crack', 'pcp', 'dmt', 'ghb', 'xanax bars', 'benzos',
      '(some|score|get|buy|take|taking|took|on|rolling on) molly', '(on|tripping on|drop|dropping|took|take|taking|microdose|microdosing) acid', 'acid (tabs|trip)', 'tripping balls',
      '(illegal|street|hard|recreational|party) drugs', '(buy|buying|sell|selling|smuggle|smuggling|deal|dealing|do|doing|take|taking|on) drugs',
      'drug (dealer|dealers|deal|deals|habit|addict|addiction|problem|smuggling|trafficking|lord|cartel|mule|money)',
      'street pills', 'pass a drug test', '(hide|mask|cover up|get rid of) ~2 (weed|pot|cannabis|marijuana) (smell)?',
      '(weed|cannabis|marijuana) (smell|smoke|pen|vape|gummies|edibles|plug|dealer)', 'smell of (weed|cannabis|marijuana)', '(grow|growing) (weed|cannabis|marijuana|shrooms|mushrooms|psilocybin)',
      'opioid withdrawal', '(addicted to|addiction to|hooked on) (heroin|meth|cocaine|coke|pills|opioids|painkillers|drugs|crack|fentanyl|xanax|opiates|percs)',
      'lines of (coke|cocaine|blow)', '(doing|do|did|snort|snorting) (lines|coke|blow|a line)', 'snort', 'snorting', 'key bump',
      'darknet market', 'dark web market', 'narcotics anonymous', 'nar anon', 'without a prescription', 'spore syringe',
      '(buy|score|get|find|cop) ~2 (weed|coke|pills|percs|xans|addys|addies|bars|carts|blow|ket)',
      '(make|making|sip|sipping|drink|drinking) lean', 'molly (i|we) (bought|got|scored|took)', 'lean with', 'promethazine', 'codeine syrup', 'purple drank', 'sizzurp',
    ],
    medium: [
      'coke', 'weed', 'marijuana', 'cannabis', 'thc', 'edibles', 'carts', 'dab pen', 'percs', 'percocet', 'oxycodone', 'oxycontin', 'opioids',
      'opiates', 'xanax', 'adderall', 'addys', 'addies', 'valium', 'no prescription', 'counterfeit pills', 'pressed pills', 'fake pills',
      'drug test', '(get|getting|got) high', 'stoned', 'tripping', '(find|got|my|a) plug (on|for)', 'find a plug', 'cubensis', 'spores',
      'detox', 'detoxing', 'withdrawal', 'cold turkey', 'rehab', 'harm reduction', 'naloxone', 'narcan', 'test strips',
      'addicted', 'dealer', 'a gram', 'ket', 'my connect', 'blow', 'eight ball', 'eightball', 'street price', 'gram or two', 'bumps', 'darknet', 'dark web', 'drugs', 'overdose', 'smuggle',
      '(mix|mixing) ~3 (alcohol|xanax|benzos|ketamine|molly|coke)', 'walls are breathing',
    ],
    weak: ['molly', 'acid', 'plug', 'dose', 'pills', 'addiction', 'party', 'festival', 'high', 'snapchat'],
  },

  politics: {
    strong: [
      'who should i vote for', 'presidential (election|race|candidate|candidates|debate|campaign|nominee)', 'who won (the)? election',
      'register to vote', 'voter (registration|id|fraud|suppression|turnout)', 'registered voter', 'polling (place|station|location|booth)',
      'ballot', 'ballots', 'absentee', 'ranked choice voting', 'electoral', 'swing state', 'midterm', 'midterms',
      'primary (debate|election|elections|race|candidate|candidates)', 'democrats', 'republicans', 'maga', 'gop', 'tories', 'tory', 'the conservatives',
      'labour (party|government|mps|leader|manifesto)', '(donald|president) trump', 'trump (administration|supporters|voters|rally|campaign|tariffs|presidency)', 'biden', 'obama', 'kamala harris', 'desantis', 'pelosi', 'netanyahu', 'zelensky',
      'political (party|parties|debate|views|opinion|candidate|campaign)', 'filibuster', 'impeach', 'impeachment',
      'border (bill|wall|crisis|policy|security)', 'immigration (policy|law|laws|reform|debate|bill)', 'abortion', 'pro life', 'pro choice',
      'gun control', 'gun rights', 'second amendment', '2nd amendment', 'gun laws',
      '(protest|protests|rally|march|marching) (against|for) (the)? (government|president|war|police|regime)',
      '(campaign|run|running) for (office|city council|mayor|congress|senate|governor|school board|president|parliament)',
      '(city council|mayoral|senate|congressional|presidential|gubernatorial|parliamentary) (campaign|race|candidate|seat|election)',
      'house of (lords|commons|representatives)', 'supreme court ruling', 'aoc', 'green new deal', '(early|snap|general) election', 'medicare for all', 'single payer', 'universal healthcare', 'election (stolen|fraud|rigged|denier|deniers)',
    ],
    medium: [
      'election', 'elections', '(vote|voting|voted) (for|in|against|on)', 'voter', 'voters', 'democrat', 'democratic party', 'republican',
      'liberal', 'liberals', 'leftist', 'leftists', 'conservative', 'conservatives', 'left wing', 'right wing', 'far right', 'far left',
      'senate', 'senator', 'congress', 'congressman', 'congresswoman', 'parliament', 'mps', 'city council', 'mayoral', 'governor',
      'politics', 'political', 'politician', 'politicians', 'immigration', 'tax plan', 'legislation', 'candidate', 'candidates',
      'trump', 'putin', 'bernie', 'prime minister', 'starmer', 'sunak', 'macron', 'trudeau', 'modi', 'newsom', 'amendment', 'term limits', 'supreme court',
      'the government', 'pass the ~2 bill', 'partisan', 'take sides',
    ],
    weak: ['vote', 'voting', 'protest', 'campaign', 'policy', 'bill', 'labour', 'debate', 'harris', 'mayor', 'poll', 'polls'],
  },

  gambling_problems: {
    strong: [
      'gambling (problem|problems|addiction|addict|debt|debts|habit|losses)', 'problem (gambling|gambler)', 'compulsive (gambling|gambler|betting)',
      'gamblers anonymous', 'gam anon', 'gamanon', 'gamban', 'betblocker', 'gambled away', 'gamble away',
      `${CANT} stop (gambling|betting|playing slots|playing poker)`,
      '(addicted|addiction|hooked) (to|on)? ~2 (gambling|betting|slots|poker|casino|casinos|sports betting|online slots|scratch cards|scratchers|lottery)',
      '(slots|betting|gambling|poker|casino|scratch card|card|lottery) addiction', 'chasing (my)? losses', '(betting|gambling|casino) (debt|debts|losses|problem)',
      'bookie', 'self (exclude|exclusion)', 'betting apps', 'problem gambling helpline',
      '(lost|lose|losing|blew|blown|spent) ~5 (on|at) (the)? (draftkings|fanduel|betmgm|bet365|slots|roulette|blackjack|poker|casino|tables|sports betting|betting|bets|sportsbook)',
      '(loan|borrowed|borrow) ~5 (to)? (gamble|bet|play poker|play slots|betting|gambling|cover my bets)',
      '(maxed|max) out ~5 (at|on) (the)? (casino|slots|betting|gambling)',
      `(how (do|can) i|i need to|i want to|trying to|help me) (stop|quit) (gambling|betting)`,
      'bet on (anything|everything|every game|every single game)',
      '(put|bet|lost|blew|spent) (my|the|our)? (rent|paycheck|savings|mortgage|house payment) (on|at)',
      '(hide|hiding|deleted|delete|deleting|clear|cleared) ~3 (betting|gambling|casino) (history|losses|apps|account)',
      '(help|support|treatment|counseling) for (the|your|his|her|my)? (gambling|betting)',
      '(money|paycheck|savings|it|its) (is|s)? (all)? going to (sports)? (bets|betting|gambling|the casino|slots)',
    ],
    medium: [
      'gambling', 'gamble', 'gambler', '(win|winning|won) (it|my money|the money|that|everything)? back', 'one more (big)? bet', 'sports betting',
      'online slots', 'crypto casino', 'keep depositing', '(stop|quit) (gambling|betting)', 'rent money (i)? lost', 'lost (it)? all',
      'need to win', 'lost my (whole)? (paycheck|savings|rent)', 'up all night (spinning|betting|gambling)', 'at the tables',
      'betting debt', '(pay|paying) (back)? my (bookie|debts)', 'took all my savings', 'parlay', 'parlays', 'slot machines', 'one more (spin|hand|round)',
      'until (its|it is) (all)? gone', 'see how much i (lost|spent)', 'casino marker',
    ],
    weak: ['betting', 'slots', 'casino', 'roulette', 'blackjack', 'poker', 'draftkings', 'fanduel', 'payday loan', 'scratch card', 'scratch cards', 'spinning', 'ruining my life', '(cant|cannot) pay (the)? rent', 'lost', 'win back'],
  },
};

/**
 * A child in the conversation. Alone it is not a category (parents shop for
 * children); with a harm category it makes the conversation about minors.
 */
export const CHILD_CONTEXT: readonly string[] = [
  'kid', 'kids', 'child', 'children', 'teen', 'teens', 'teenage', 'teenager', 'teenagers', 'toddler', 'little (brother|sister)',
  '#teen (year|years|yr|yrs) old', '#teen yo', '(is|turned|only|just) #teen', 'at school', 'in class', 'my teacher',
  '(middle|elementary|high|primary) school', 'classmates', 'my (son|daughter)',
];

/** Ordinary phrases that contain a cue's words; their words are masked before cues are matched. */
export const NEAR_MISSES: readonly string[] = [
  // self harm
  'suicide (squad|doors|door|sauce|wings|wing|sprints|sprint|king|silence|drill|drills)', 'dying to', 'to die for', 'die (cast|cut|hard)',
  'overdose on (netflix|chocolate|sugar|caffeine|tv|coffee|candy|carbs|anime|content)', 'overdosed on (netflix|chocolate|sugar|caffeine|tv|coffee|candy|carbs)',
  'lethal weapon', 'end of life (date|support|for)', 'end it (with|on)',
  // mental health
  'depression (glass|era|glassware)', '(great|economic|tropical) depression', 'panic (buying|button|room|bar)',
  '(cool|cool and|dry) dark place', '(store|keep|kept|stored) ~3 dark place', 'midlife crisis',
  'purge (my|the|old)? (closet|wardrobe|files|cache|data|stuff|clothes|inbox|emails)', 'purging (my|the|old)? (closet|wardrobe|files|cache|data|stuff|clothes|inbox|emails)',
  // medical
  '(car|truck|van|vehicle|engine|bike) (had|has|having) a breakdown', 'breakdown (service|cover|coverage|recovery|lane)',
  'drowning in (work|emails|email|paperwork|laundry|debt|homework|notifications)', 'gave me a heart attack', '(almost|nearly) had a heart attack', 'emergency fund', 'emergency funds', 'seizure of', 'er diagram', 'er diagrams',
  '(whos|shes|hes|im|is) a cancer', 'cancer (zodiac|sign|season|horoscope|sun|moon|rising)',
  '(laptop|computer|pc|mac|macbook|phone|screen|monitor|display|tablet|ipad|kindle|tv|printer) ~3 wont wake', 'unconscious bias', 'poison ivy', 'stroke (of|technique|rate|count)',
  'swim stroke', 'freestyle stroke',
  // sexual
  'sex of (the|my|a|your|our)? (chick|chicks|chicken|chickens|baby|puppy|puppies|kitten|kittens|fish|bird|birds|goat|goats|plant|plants|rabbit|rabbits)',
  'sex (and the city|ed|education|chromosome|chromosomes|determination|ratio)',
  'nude (lipstick|lip|lips|heels|heel|color|colour|shade|shades|tone|tones|palette|pantyhose|tights|nail|nails|polish|pumps|sandals|bra|underwear|makeup|eyeshadow|liner|gloss|flats)',
  'pussy (willow|willows|cat|cats)', 'kinky (hair|curly|curls|coils|twist|twists)', 'penetration (test|testing|tester|tests)', 'pen test',
  'breast (pump|pumps|milk|cancer|feeding|feed|pocket|stroke)', '(chicken|turkey|duck) breast', 'paint stripper', 'wire stripper', 'ford escort',
  // hate
  'spic and span', 'chink in (the|his|her|my|their)? (armor|armour)', 'coon (hound|hounds|dog)', 'faggot (and|with|in|into) ~2 (pea|peas|gravy|mash|onion|oven|pan|tray)', '(cook|make|bake|brown|fry|buy) (the)? faggot',
  'bully (stick|sticks|breed|breeds)', 'american bully', 'grammar nazi', 'soup nazi', 'threatening (weather|sky|skies|clouds|storm|storms)', 'looks threatening',
  // violence
  'murder (mystery|mysteries|drones|podcast|podcasts|hornet|hornets)', 'could murder a', 'got shot down', 'flu shot', 'take a stab', 'stab at',
  'fell victim', 'bath bomb', 'photo bomb', 'the bomb', 'da bomb', 'bomb (pop|pops|dot com)', 'shooting (photos|photo|pictures|video|videos|star|stars|guard|range)',
  '(be|was|will be|is) the death of me', '(finished|done with|finishing|completed|beat) (chemo|chemotherapy|radiation|treatment)', 'memorial day', 'killed it', 'kill (time|weeds|weed|the weeds)', 'killing (time|weeds|weed|it)', 'hit me up', 'it hit me',
  'war (thunder|hammer|games|of the worlds)', 'star wars', 'bidding war', 'price war', 'console war',
  // drugs
  'coke (zero|zeros|can|cans|bottle|bottles|float|floats|products)', 'diet coke', 'coca cola', 'coke or pepsi', 'pepsi or coke',
  'weed (killer|killers|whacker|eater|barrier|control|fabric|puller)', 'weed (the|my) (garden|lawn|yard|beds|flower beds)', '(pull|pulling) ~2 weeds',
  'acid (reflux|wash|test|rain|jazz)', '(folic|citric|hyaluronic|salicylic|glycolic|lactic|amino|stomach) acid',
  'high (heels|heel|quality|speed|end|protein|fiber|yield|waisted|waist|rise|res|resolution|blood pressure)', 'crack (in|on) (my|the|a)? (screen|phone|windshield|wall|ceiling|foundation)',
  'crack the code', 'plug (adapter|adapters|in|ins|socket|type)', 'spark plug', 'withdrawal (from|fee|fees|limit|limits|penalty)', '(early|atm|cash|bank) withdrawal',
  'detox (tea|juice|cleanse|smoothie|water|bath|diet|mask)', 'digital detox', 'drug store', 'drug stores', 'party (supplies|city|favors|decorations|theme|ideas|games)',
  // politics
  '(labor|labour) day', 'presidents day', 'president s day', 'trump (card|cards)', 'board (election|elections|vote)',
  'conservative (estimate|estimates|portfolio|investment|investments|investor|approach|cut|fit|dress|style|allocation)',
  'liberal (amount|amounts|arts|dose|sprinkle|use|helping)', 'tea party', 'primary (colors|colours|care|school|key|source|residence)',
  // gambling
  'time slot', 'time slots', 'slot (car|cars)', 'poker (chip|chips|set|table|night|face)', 'casino (night|theme|party|buffet|buffets|hotel)',
  // minors
  'kid at heart', 'the groom', 'bride and groom', 'groom (my|the|your|his|her|a) (dog|dogs|cat|cats|pet|pets|horse|beard|puppy)',
  '(dog|pet|self) grooming', 'grooming (kit|salon|tools|brush|products|table|clippers|shears|appointment|routine|set)',
];

/** Key words worth catching when misspelled (fuzzy.ts). */
export const FUZZY_KEYS: readonly string[] = [
  'suicide', 'suicidal', 'overdose', 'overdosed', 'depressed', 'depression', 'anxiety', 'hopeless', 'worthless', 'breakdown', 'psychotic',
  'harassing', 'harassment', 'harassed', 'bullying', 'bullied', 'murdered', 'murder', 'stabbed', 'shooting', 'terrorist', 'racist', 'stalking',
  'cocaine', 'heroin', 'fentanyl', 'methamphetamine', 'ketamine', 'gambling', 'gambler',
  'election', 'elections', 'erotic', 'pornography', 'masturbate', 'unconscious', 'seizure', 'bleeding', 'chemotherapy', 'ambulance',
  'unresponsive', 'overwhelmed', 'flashbacks', 'dissociating', 'hospice', 'dialysis', 'abducted', 'kidnapped', 'cutting', 'myself',
  'swallowed', 'emergency', 'attack', 'molested', 'underage', 'pedophile',
];

/** Real words one edit away from a key word, which must stay themselves. */
export const FUZZY_STOP_WORDS: readonly string[] = [
  'heron', 'herons', 'heroic', 'herein', 'heroine', 'heroines', 'exotic', 'attach', 'homeless', 'overdone', 'breeding', 'bleeping', 'blending',
  'stubbed', 'stalling', 'stacking', 'staking', 'shouting', 'shooing', 'scooting', 'erection', 'ejection', 'electron', 'elation',
  'emergence',
];

export const NUMBER_WORDS: Readonly<Record<string, number>> = {
  six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17,
};

export const ORDINAL_WORDS: Readonly<Record<string, number>> = {
  first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9, tenth: 10, eleventh: 11, twelfth: 12,
};
