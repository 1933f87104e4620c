// The contacts of the import benchmarks (scripts/bench/import.ts, import-profile.ts): contacts as people have them.
// Random valid US and Canadian numbers and some UK, German and Mexican ones, in a dozen formats; a different last
// name on every row (accents, apostrophes, particles); an email on every row; four custom fields; ~2% invalid phones
// and ~3% duplicates (an earlier row's number, often written another way).

// mulberry32, seeded by diverseContacts.
let seed = 0;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = <T>(a: readonly T[]) => a[Math.floor(rand() * a.length)]!;
const digits = (n: number) => Array.from({ length: n }, () => int(0, 9)).join("");

// prettier-ignore
const FIRST = ["James", "Mary", "José", "María", "Zoë", "Björn", "Siobhán", "Łukasz", "Chloé", "François", "Søren", "Mehmet", "Aisha", "Wei", "Olga", "Nguyễn", "Ana", "João", "Renée", "Jürgen", "Ines", "Darnell", "Priya", "Kenji", "Fatima", "Liam", "Noah", "Emma", "Olivia", "Ava", "Sophia", "Isabella", "Mia", "Lucas", "Mateo", "Santiago", "Valentina", "Camila", "Hiroshi", "Yuki", "Amara", "Kwame", "Chiara", "Giulia", "Dmitri", "Anastasia", "Seán", "Niamh", "Raúl", "Inés", "Ömer", "Ayşe", "Thảo", "Minh", "Carlos", "Linda", "Robert", "Patricia", "David", "Jennifer"];
// prettier-ignore
const SYLLABLES = ["mü", "ller", "ñú", "ñez", "gar", "cí", "a", "ro", "dri", "guez", "schmidt", "ber", "ko", "vá", "lo", "pez", "hu", "ang", "ta", "ka", "ha", "shi", "wal", "ton", "fer", "nán", "dez", "bren", "nan", "ri", "vers", "stein", "do", "min", "go", "sil", "va", "pe", "rei", "ra"];
const PARTICLES = ["O'", "Mc", "de la ", "van ", "von ", "Di ", "Le ", "Al-", "Mac", "St. "];
// prettier-ignore
const CITIES = ["New York", "Los Angeles", "Chicago", "Houston", "Phoenix", "Philadelphia", "San Antonio", "San Diego", "Dallas", "San José", "Austin", "Jacksonville", "Washington, D.C.", "Boston", "El Paso", "Nashville", "Detroit", "Portland", "Memphis", "Louisville", "Milwaukee", "Albuquerque", "Tucson", "Fresno", "Sacramento", "Toronto", "Vancouver", "London", "Berlin", "Ciudad de México", "München", "Guadalajara", "Manchester", "Köln", "Montréal"];
const PLANS = ["free", "basic", "pro", "gold", "platinum"];
const DOMAINS = ["gmail.com", "yahoo.com", "outlook.com", "hotmail.com", "icloud.com", "aol.com", "proton.me", "comcast.net", "gmx.de", "web.de", "btinternet.com", "yahoo.com.mx"];
// prettier-ignore
const AREAS = [201,202,203,205,206,207,208,209,210,212,213,214,215,216,217,218,219,224,225,228,229,231,234,239,240,248,251,252,253,254,256,260,262,267,269,270,272,276,281,301,302,303,304,305,307,308,309,310,312,313,314,315,316,317,318,319,320,321,323,325,330,331,334,336,337,339,346,347,351,352,360,361,385,386,401,402,404,405,406,407,408,409,410,412,413,414,415,417,419,423,424,425,430,432,434,435,440,442,443,458,469,470,475,478,479,480,484,501,502,503,504,505,507,508,509,510,512,513,515,516,517,518,520,530,531,534,539,540,541,551,559,561,562,563,567,570,571,573,574,575,580,585,586,601,602,603,605,606,607,608,609,610,612,614,615,616,617,618,619,620,623,626,628,629,630,631,636,641,646,650,651,657,660,661,662,667,669,678,681,682,701,702,703,704,706,707,708,712,713,714,715,716,717,718,719,720,724,725,727,731,732,734,737,740,747,754,757,760,762,763,765,769,770,772,773,774,775,779,781,785,786,801,802,803,804,805,806,808,810,812,813,814,815,816,817,818,828,830,831,832,843,845,847,848,850,856,857,858,859,860,862,863,864,865,870,872,878,901,903,904,906,907,908,909,910,912,913,914,915,916,917,918,919,920,925,928,929,931,936,937,940,941,947,949,951,952,954,956,959,970,971,972,973,978,979,980,984,985,989,416,647,604,514,403,613];
const INVALID = ["12345", "555-0123", "n/a", "+1 (000) 000-0000", "call me", "+44 12", "", "123-456-7890", "0", "+49 0", "tbd", "(555) 555-555"];

/** A number as its parts, so a duplicate row can write an earlier row's number another way. */
type Num = { cc: "1" | "44" | "49" | "52"; n: string };
function randomNumber(): Num {
  const r = rand();
  if (r < 0.9) {
    const ex = `${int(2, 9)}${digits(2)}`;
    return { cc: "1", n: `${pick(AREAS)}${ex.endsWith("11") ? `${ex[0]}23` : ex}${digits(4)}` };
  }
  if (r < 0.94) return { cc: "44", n: `7${pick(["4", "5", "8"])}${digits(8)}` };
  if (r < 0.97) return { cc: "49", n: `${pick(["151", "152", "157", "160", "162", "170", "172", "176", "177", "179"])}${digits(8)}` };
  return { cc: "52", n: `${pick(["55", "33", "81"])}${digits(8)}` };
}
/** Written as people write it: national formats for North America (the import's default country is US). */
function written({ cc, n }: Num): string {
  if (cc === "1") {
    const [a, e, l] = [n.slice(0, 3), n.slice(3, 6), n.slice(6)];
    // prettier-ignore
    switch (int(0, 11)) {
      case 0: return `(${a}) ${e}-${l}`;
      case 1: return `${a}-${e}-${l}`;
      case 2: return `${a}.${e}.${l}`;
      case 3: return `+1 ${a} ${e} ${l}`;
      case 4: return `+1${n}`;
      case 5: return `1 (${a}) ${e}-${l}`;
      case 6: return `${n}`;
      case 7: return `1-${a}-${e}-${l}`;
      case 8: return `${a} ${e} ${l}`;
      case 9: return `+1 (${a}) ${e}-${l}`;
      case 10: return `1${n}`;
      default: return rand() < 0.1 ? `${a}-${e}-${l} ext. ${int(1, 999)}` : `${a}/${e}-${l}`;
    }
  }
  if (cc === "44") return pick([`+44 ${n.slice(0, 4)} ${n.slice(4)}`, `+44${n}`, `011 44 ${n.slice(0, 4)} ${n.slice(4)}`, `+44 (0)${n.slice(0, 4)} ${n.slice(4)}`]);
  if (cc === "49") return pick([`+49 ${n.slice(0, 3)} ${n.slice(3)}`, `+49${n}`, `+49 (0)${n.slice(0, 3)} ${n.slice(3, 7)} ${n.slice(7)}`, `011 49 ${n}`]);
  return pick([`+52 ${n.slice(0, 2)} ${n.slice(2, 6)} ${n.slice(6)}`, `+52${n}`, `011 52 ${n.slice(0, 2)} ${n.slice(2)}`]);
}
/** A different last name on every row: the row's index, scrambled, as four syllables, now and then with a particle. */
function lastName(i: number): string {
  let k = (i * 1_000_003 + 7919) % 2_560_000; // a permutation of 0..40^4-1 (1,000,003 is prime to 2,560,000)
  let s = "";
  for (let d = 0; d < 4; d++, k = Math.floor(k / 40)) s += SYLLABLES[k % 40];
  const name = s[0]!.toUpperCase() + s.slice(1);
  return rand() < 0.12 ? pick(PARTICLES) + name : name;
}
const ascii = (s: string) => s.normalize("NFD").replace(/[\u0300-\u036f]/g, "").replace(/[^A-Za-z0-9]/g, "").toLowerCase();
const csvCell = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);

export const HEADER = ["First Name", "Last Name", "Email", "Phone", "City", "Birthday", "Plan", "Customer ID"];
export const MAPPING = ["firstName", "lastName", "email", "phone", "custom:city", "custom:birthday", "custom:plan", "custom:customer_id"];

/** `n` rows: the CSV's lines (the header first) and each row's first name, last name, email and phone as written. */
export function diverseContacts(n: number) {
  seed = 17; // every run imports the same file
  const lines: string[] = [HEADER.join(",")];
  const rows: [string, string, string, string][] = [];
  const numbers: Num[] = [];
  for (let i = 0; i < n; i++) {
    let phone: string;
    const r = rand();
    if (r < 0.02) phone = pick(INVALID);
    else if (r < 0.05 && numbers.length) phone = written(numbers[int(0, numbers.length - 1)]!);
    else {
      const num = randomNumber();
      numbers.push(num);
      phone = written(num);
    }
    const first = pick(FIRST);
    const last = lastName(i);
    const email = `${ascii(first)}${pick([".", "_", ""])}${ascii(last)}${rand() < 0.3 ? int(1, 99) : ""}@${pick(DOMAINS)}`;
    rows.push([first, last, email, phone]);
    const birthday = `${int(1940, 2006)}-${String(int(1, 12)).padStart(2, "0")}-${String(int(1, 28)).padStart(2, "0")}`;
    lines.push([first, last, email, phone, pick(CITIES), birthday, pick(PLANS), `C${int(100000, 999999)}`].map(csvCell).join(","));
  }
  return { lines, rows };
}

// prettier-ignore
const PLAIN_FIRST = ["James", "Mary", "John", "Patricia", "Robert", "Jennifer", "Michael", "Linda", "William", "Elizabeth", "David", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Charles", "Karen", "Maria", "José", "Chloé", "Zoë"];
/** Cells a spreadsheet would read as formulas, as lists exported from one carry them. */
const FORMULAS = ["=SUM(A1:A9)", "+1 call back", "-", "@home", '=HYPERLINK("http://example.com","site")', "=1+1", "-Smith", "@@team"];
const PLAIN_AREAS = AREAS.filter((a) => ![416, 647, 604, 514, 403, 613].includes(a));
const PLAIN_INVALID = ["12345", "555-0123", "n/a", "(000) 000-0000", "123-456-7890", "0", "(555) 555-555", "none", "+1 (111) 222-3333"];

/** A US number in one of the six ways lists write them (the import's country: the owner's, US). */
function writtenUs(n: string, way: number): string {
  const [a, e, l] = [n.slice(0, 3), n.slice(3, 6), n.slice(6)];
  // prettier-ignore
  switch (way) {
    case 0: return `(${a}) ${e}-${l}`;
    case 1: return `${a}-${e}-${l}`;
    case 2: return `${a}.${e}.${l}`;
    case 3: return n;
    case 4: return `+1${n}`;
    default: return `+1 ${a}-${e}-${l}`;
  }
}

export const PLAIN_HEADER = ["First Name", "Last Name", "Email", "Phone Number"];

/**
 * `n` rows of the plainest list, the shape of issue 29's file (posted with no mapping and no country): the header
 * PLAIN_HEADER; US numbers only, in six formats; ~3% invalid; ~5% duplicates (an earlier row's number written
 * another way); a different last name on every row, few distinct first names; an email on every row; now and then a
 * cell a spreadsheet would read as a formula. The same lines and rows as diverseContacts.
 */
export function plainContacts(n: number) {
  seed = 29;
  const lines: string[] = [PLAIN_HEADER.join(",")];
  const rows: [string, string, string, string][] = [];
  const numbers: string[] = [];
  for (let i = 0; i < n; i++) {
    let phone: string;
    const r = rand();
    if (r < 0.03) phone = pick(PLAIN_INVALID);
    else if (r < 0.08 && numbers.length) phone = writtenUs(numbers[int(0, numbers.length - 1)]!, int(0, 5));
    else {
      const ex = `${int(2, 9)}${digits(2)}`;
      const num = `${pick(PLAIN_AREAS)}${ex.endsWith("11") ? `${ex[0]}23` : ex}${digits(4)}`;
      numbers.push(num);
      phone = writtenUs(num, int(0, 5));
    }
    let first = pick(PLAIN_FIRST);
    let last = lastName(i);
    const email = `${ascii(first)}${pick([".", "_", ""])}${ascii(last)}${rand() < 0.3 ? int(1, 99) : ""}@${pick(DOMAINS)}`;
    const f = rand();
    if (f < 0.005) first = pick(FORMULAS);
    else if (f < 0.01) last = pick(FORMULAS);
    rows.push([first, last, email, phone]);
    lines.push([first, last, email, phone].map(csvCell).join(","));
  }
  return { lines, rows };
}
