/**
 * The derived search columns of a POI: what keywords match, kept in step with every
 * write. The stored fields are never changed; only these columns hold folded text.
 *
 * search_text = each of name, address, category and tags folded (@poi/shared/search-fold: one run
 * of letters per field), then the name's reading in katakana (kuromoji), its romaji (wanakana,
 * loosened the way query romaji is) and the English of its loanwords (タワー → tower), all folded
 * the same way, space-separated. A keyword word never holds a space, so a word matches inside one
 * field or one reading, never across two.
 */
import { foldSearchWord } from '@poi/shared/search-fold';
import { characterBigrams } from '@poi/shared/text';
import { englishGlosses, loadReadings, romajiKey, type Readings } from '../../lib/readings';

/** The folding the columns of a row were written with; rows below it are rewritten by the back-fill. */
export const SEARCH_FOLD_VERSION = 1;

let readings: Readings | undefined;

/**
 * Whether rows written by the folding before migration 0014 may remain: until the back-fill of
 * this process has found none, keyword searches also match those rows as the old search did.
 */
let staleRows = true;
export const staleSearchRowsMayExist = () => staleRows;
export function setStaleSearchRows(mayExist: boolean): void {
  staleRows = mayExist;
}

/**
 * Loads the readings dictionary (about a second, once per process). Until it is loaded, writes
 * store the folded fields without readings and search_version 0, which the back-fill completes.
 */
export async function prepareSearchColumns(): Promise<void> {
  readings ??= await loadReadings();
}

export interface SearchFields {
  name: string;
  address?: string | null;
  category?: string | null;
  tags?: readonly string[] | null;
}

export interface SearchColumns {
  searchText: string;
  searchBigrams: string[];
  searchName: string;
  searchVersion: number;
  /** The tags folded, distinct, empty ones left out: the `tags` filter's whole-tag match. */
  searchTags: string[];
  /** The category folded (null without one): the `category` filter. */
  searchCategory: string | null;
}

/** The name's reading, romaji and loanword English, folded; words already in `have` are left out. */
function readingWords(name: string, have: Set<string>): string[] {
  const reading = readings!.readingOf(name);
  const out: string[] = [];
  for (const w of [reading, romajiKey(reading), ...englishGlosses(reading)].map(foldSearchWord)) {
    if (w && !have.has(w)) {
      have.add(w);
      out.push(w);
    }
  }
  return out;
}

/** The folded tags (distinct, empty ones left out) and category of the `tags` and `category` filters: no readings needed. */
export function tagColumns(f: Pick<SearchFields, 'category' | 'tags'>): Pick<SearchColumns, 'searchTags' | 'searchCategory'> {
  return { searchTags: [...new Set((f.tags ?? []).map(foldSearchWord).filter(Boolean))], searchCategory: (f.category && foldSearchWord(f.category)) || null };
}

export function searchColumns(f: SearchFields): SearchColumns {
  const searchName = foldSearchWord(f.name);
  const others = [f.address, f.category, ...(f.tags ?? [])].filter((v): v is string => !!v).map(foldSearchWord);
  const fields = [searchName, ...others].filter(Boolean);
  const have = new Set(fields);
  const words = readings ? [...fields, ...readingWords(f.name, have)] : fields;
  const searchText = words.join(' ');
  return { searchText, searchBigrams: characterBigrams(searchText), searchName, searchVersion: readings ? SEARCH_FOLD_VERSION : 0, ...tagColumns(f) };
}
