import * as stopword from 'stopword';
import { normalizeWords } from '../encoder';

/**
 * Words as the signals read them, per language: a conversation's words with
 * their surface form (lower case, accents kept, so "vélo électrique" reaches
 * a French bidder as written) and a folded key (accents off, as the encoder
 * reads it) to compare and count them by.
 *
 * Function words come from the `stopword` package (MIT) per language; the
 * conversational words below (asking, thanking, hedging) are ours: they say
 * how someone talks, not what about, so they are never a keyword and never
 * make a request on their own.
 */
export interface Token {
  /** Lower case, as written (accents kept; a French elision such as "l'" cut off). */
  surface: string;
  /** Folded: what the encoder, the stop lists and the lexicons compare. */
  key: string;
}

const STOPWORD_LISTS: Record<string, string> = {
  en: 'eng',
  fr: 'fra',
  de: 'deu',
  es: 'spa',
  it: 'ita',
  pt: 'por',
  nl: 'nld',
  pl: 'pol',
  sv: 'swe',
  tr: 'tur',
  ru: 'rus',
};

/** Conversational words, per language (folded on load). */
const CONVERSATIONAL: Record<string, string> = {
  en: `so own either neither nor yet though although until unless whether once upon within without onto off above below down during again further why no not just against does will shall may she its whom
    buy buying bought purchase purchasing day days week weeks month months year years weekend morning tonight hour hours minute minutes time times
    i im i'm me my mine we us our you your yours it its it's they them their this that these those there here what which who whom whose when where why how
    is are was were be been being am do does did doing done have has had having will would shall should can could may might must need needs needed want wants wanted wanting
    like likes liked looking look looks find finding get getting got give make making know knowing think thinking thought tell telling say said ask asked help helps helping
    recommend recommends recommendation recommendations suggest suggestion suggestions advice idea ideas option options tip tips choose pick
    good great best better nice fine ok okay alright right sure yes yeah yep no nope not just really very quite pretty maybe perhaps probably actually also too still even
    thanks thank thx cheers please pls hi hello hey hiya morning evening night bye goodbye lol haha hahaha wow cool awesome perfect amazing lovely fun funny joke jokes
    something anything everything nothing someone anyone thing things stuff lot lots bit kind sort way ways one ones some any every each other another much many more most less few
    first second next last new old big small little long short high low well back again already now today tomorrow yesterday soon later currently usually always never sometimes
    go going goes went come coming take taking use using used try trying tried keep start started work works worked working mean means let lets put see seen seem seems feel feeling
    im ive id ill youre dont doesnt didnt cant wont isnt arent wasnt thats whats theres hes shes lets gonna wanna gotta kinda sorta`,
  fr: `acheter achète jour jours semaine semaines mois an ans année années dernier dernière prochain prochaine soir matin heure heures fois
    je j moi me mon ma mes tu te toi ton ta tes vous votre vos nous notre nos il elle ils elles on ce cet cette ces ça ca cela celui celle ceux quoi quel quelle quels quelles qui que qu comment pourquoi où quand combien
    est suis es sommes êtes sont être ai as avons avez ont avoir fais fait faire peux peut pouvez pouvoir veux veut voulez vouloir voudrais dois doit devrais cherche cherchons chercher trouver besoin conseil conseils conseiller recommander idée idées
    bon bonne bien mieux meilleur meilleure meilleurs très trop assez vraiment aussi encore déjà oui non pas merci stp svp bonjour salut coucou bonsoir super génial parfait cool ok d'accord
    quelque chose truc trucs un une des du de la le les autre autres plus moins beaucoup peu tout tous toute toutes chaque aujourd hui demain maintenant`,
  de: `kaufen kaufe gekauft tag tage woche wochen monat monate monats jahr jahre letzten letzte nächsten nächste abend morgens stunde stunden mal
    ich mich mir mein meine meinen du dich dir dein deine sie ihr ihre wir uns unser es er man das dies diese dieser dieses was welche welcher welches wer wie warum wo wann wieviel wie viel
    bin bist ist sind war sein habe hast hat haben kann kannst können möchte möchten will willst wollen soll sollte muss brauche brauchen suche suchen finden empfehlen empfehlung tipp tipps rat idee
    gut gute guten besser beste besten sehr wirklich auch noch schon ja nein nicht danke bitte hallo hi hey moin tschüss super toll perfekt cool okay ok
    etwas was ding dinge eine einen einer ein viel viele mehr weniger alle jede heute morgen jetzt`,
  es: `comprar compro día días semana semanas mes meses año años pasado pasada próximo próxima noche tarde hora horas vez veces
    yo me mi mis tu tus te usted ustedes su sus nosotros nuestro nuestra él ella ellos ellas esto eso este esta estos estas ese esa qué que cuál cual quién cómo como por porque dónde donde cuándo cuánto cuanto
    es soy eres somos son estoy está están ser estar tengo tiene tienen tener puedo puede pueden poder quiero quiere quieres querer quisiera necesito necesita busco buscando buscar encontrar recomendar recomiendas recomendación consejo consejos idea
    bueno buena buen mejor mejores muy mucho muchos también ya sí si no gracias porfa favor hola buenas hey vale genial perfecto ok claro
    algo cosa cosas un una unos unas otro otra más menos todo todos cada hoy mañana ahora`,
  it: `comprare compro giorno giorni settimana settimane mese mesi anno anni scorso scorsa prossimo prossima sera mattina ora ore volta volte
    io mi me mio mia miei tu ti te tuo tua lei voi vostro noi nostro lui loro questo questa questi quello quella cosa che cosa quale chi come perché dove quando quanto quanti
    è sono sei siamo siete essere ho hai ha abbiamo hanno avere posso puoi può possiamo potere voglio vuoi vorrei volere devo deve dovrei cerco cercando cercare trovare bisogno consiglio consigli consigliare consigliami idea
    buono buona bene meglio migliore migliori molto tanto anche già sì no non grazie prego ciao salve ehi perfetto ottimo ok va
    qualcosa cose un una uno altro altra più meno tutto tutti ogni oggi domani adesso ora`,
  pt: `comprar compro dia dias semana semanas mês meses ano anos passado passada próximo próxima noite tarde hora horas vez vezes
    eu me meu minha meus minhas você vocês te teu tua seu sua nós nosso nossa ele ela eles elas isso isto este esta esse essa que qual quais quem como porque onde quando quanto quanta
    é sou somos são estou está estão ser estar tenho tem têm ter posso pode podem poder quero quer queria preciso precisa procuro procurando procurar encontrar recomendar recomenda recomendação conselho conselhos dica dicas ideia
    bom boa bem melhor melhores muito muita também já sim não obrigado obrigada olá oi ei legal ótimo perfeito ok
    algo coisa coisas um uma outro outra mais menos tudo todos cada hoje amanhã agora`,
  nl: `kopen koop dag dagen week weken maand maanden jaar jaren vorige volgende avond ochtend uur keer
    ik me mij mijn jij je jou jouw u uw wij we ons onze hij zij ze het dit dat deze die wat welke wie hoe waarom waar wanneer hoeveel
    is ben bent zijn was heb hebt heeft hebben kan kun kunt kunnen wil wilt willen zou moet moeten zoek zoeken vinden nodig aanraden aanbevelen advies tip tips idee
    goed goede beter beste heel erg echt ook nog al ja nee niet bedankt dank dankjewel alsjeblieft hallo hoi hey super top perfect oké ok
    iets ding dingen een ander andere meer minder alle elke vandaag morgen nu`,
  pl: `kupić kupować dzień dni tydzień tygodnie miesiąc miesiące rok lata lat przyszłym przyszły ostatni wieczór rano godzina godziny raz
    ja mnie mi mój moja moje ty ciebie ci twój twoja wy wasz my nas nasz on ona oni to ten ta te tego co jaki jaka jakie który która kto jak dlaczego gdzie kiedy ile
    jest jestem są być mam ma mają mieć mogę może można chcę chciałbym chciałabym potrzebuję szukam szukać znaleźć polecić polecasz polecisz rada porada pomysł
    dobry dobra dobre lepszy najlepszy najlepsze bardzo też już tak nie dzięki dziękuję proszę cześć hej super świetnie ok okej
    coś rzecz jeden jedna inny inne więcej mniej wszystko każdy dzisiaj jutro teraz`,
  sv: `köpa köper dag dagar vecka veckor månad månader år förra nästa kväll morgon timme timmar gång
    jag mig min mitt mina du dig din ditt ni er vi oss vår vårt han hon de dem det den detta denna dessa vad vilken vilket vilka vem hur varför var när hur mycket
    är var vara har hade ha kan kunna vill ville skulle måste behöver letar söker hitta rekommendera tips råd idé
    bra bättre bäst mycket verkligen också redan ja nej inte tack snälla hej hallå tjena super perfekt okej ok
    något sak saker en ett annan andra mer mindre alla varje idag imorgon nu`,
  tr: `almak alabilirim gün günler hafta haftalar ay aylar yıl yıllar geçen gelecek akşam sabah saat kez
    ben beni bana benim sen seni sana senin siz sizin biz bizim o onu ona onun bu şu bunlar ne hangi kim nasıl neden niçin nerede ne zaman kaç
    var yok mı mi mu mü değil olmak olur oldu isterim istiyorum lazım gerek gerekiyor arıyorum bulmak önerir önerin öneri tavsiye fikir
    iyi daha en çok gerçekten de da zaten evet hayır teşekkürler teşekkür sağol merhaba selam harika süper mükemmel tamam
    bir şey şeyler başka daha az hepsi her bugün yarın şimdi`,
  ru: `купить куплю день дня дней неделя неделю недели месяц месяца месяцев год года лет прошлый следующий вечер утро час часа раз
    я меня мне мой моя мои ты тебя тебе твой вы вас ваш мы нас наш он она они это этот эта эти что какой какая какие который кто как почему где когда сколько
    есть быть был была могу может можно хочу хотел хотела нужно нужен нужна ищу найти посоветуй посоветуйте совет идея
    хороший хорошая лучше лучший очень тоже уже да нет не спасибо пожалуйста привет здравствуйте отлично супер ок
    что-то вещь один одна другой другие больше меньше все каждый сегодня завтра сейчас`,
};

const fold = (word: string) => normalizeWords(word).replace(/ /g, '');

const stopLists = new Map<string, ReadonlySet<string>>();

/** The words of `language` (ISO 639-1) that say nothing about a topic; English's too, as conversations borrow English words. */
export function functionWords(language: string | undefined): ReadonlySet<string> {
  const lang = language && STOPWORD_LISTS[language] ? language : 'en';
  let set = stopLists.get(lang);
  if (set) return set;
  const words = new Set<string>();
  const add = (list: readonly string[] | undefined) => list?.forEach((w) => words.add(fold(w)));
  const lists = stopword;
  for (const l of new Set(['en', lang])) {
    add(lists[STOPWORD_LISTS[l]]);
    add(CONVERSATIONAL[l].split(/\s+/).filter(Boolean));
  }
  words.delete('');
  set = words;
  stopLists.set(lang, set);
  return set;
}

/** The languages with their own lists (others read as English). */
export const LISTED_LANGUAGES = Object.keys(STOPWORD_LISTS);

/** A word may carry combining marks (text typed or pasted decomposed: "e" + U+0301). */
const WORD = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:['’-][\p{L}\p{N}][\p{L}\p{M}\p{N}]*)*/gu;
/** French and Italian elisions: "l'autonomie" is "autonomie". */
const ELISION = /^(?:[ldjmnstc]|qu|dell|dall|nell|sull|all)['’]/u;

/** A text's words in order. */
export function tokens(text: string): Token[] {
  const out: Token[] = [];
  // Turkish's dotted capital İ lower-cases to "i" and a combining dot: "İstanbul" is "istanbul", not "i" and "stanbul".
  for (const match of text
    .toLowerCase()
    .replace(/i\u0307/g, 'i')
    .matchAll(WORD)) {
    const surface = match[0].replace(ELISION, '');
    const key = fold(surface);
    if (key) out.push({ surface, key });
  }
  return out;
}

/** Clause boundaries: a phrase never spans them. */
export const CLAUSE = /[.!?;,:()\n\u2026"“”«»\uE000]+|\s[-–—]\s/u;

/** A word that can stand in a keyword: not a function word, not a number, at least two letters. */
export function isContentWord(key: string, stop: ReadonlySet<string>): boolean {
  return key.length >= 2 && !stop.has(key) && !/^\d+$/.test(key);
}
