// Replaced by the leaderboard page.
export const dynamic = "force-dynamic";
export default function Home() {
  return <p>Leaderboard coming up.</p>;
}
