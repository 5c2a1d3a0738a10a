import { redirect } from "next/navigation";

/** Every submission is listed on the queue page. */
export default function SubmissionsIndex() {
  redirect("/queue");
}
