// The leaderboard pages read the database, which arrives with the web-app issue; until then
// this page points to the command line, which holds the whole scoring engine.
export default function Home() {
  return (
    <main className="mx-auto max-w-2xl p-8">
      <h1 className="text-2xl font-semibold">Agentboard</h1>
      <p className="mt-4">
        Validate and score a submission from the command line: <code>npm run cli -- score &lt;bundle&gt; --benchmark &lt;dir&gt;</code>.
      </p>
    </main>
  );
}
